// PLACEHOLDER (being built): the Doctor page.
import { useTitle } from '../../router.js';

export default function Page() {
  useTitle('Doctor');
  return (
    <section className="page">
      <h1>Doctor</h1>
    </section>
  );
}
