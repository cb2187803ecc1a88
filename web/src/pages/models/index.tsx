// PLACEHOLDER (being built): the Models page.
import { useTitle } from '../../router.js';

export default function Page() {
  useTitle('Models');
  return (
    <section className="page">
      <h1>Models</h1>
    </section>
  );
}
