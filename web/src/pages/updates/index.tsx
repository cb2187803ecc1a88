// PLACEHOLDER (being built): the Updates page.
import { useTitle } from '../../router.js';

export default function Page() {
  useTitle('Updates');
  return (
    <section className="page">
      <h1>Updates</h1>
    </section>
  );
}
