// PLACEHOLDER (being built): the Access page.
import { useTitle } from '../../router.js';

export default function Page() {
  useTitle('Access');
  return (
    <section className="page">
      <h1>Access</h1>
    </section>
  );
}
