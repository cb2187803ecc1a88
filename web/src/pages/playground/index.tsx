// PLACEHOLDER (being built): the Playground page.
import { useTitle } from '../../router.js';

export default function Page() {
  useTitle('Playground');
  return (
    <section className="page">
      <h1>Playground</h1>
    </section>
  );
}
