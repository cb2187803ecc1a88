// PLACEHOLDER (being built): the Slots page.
import { useTitle } from '../../router.js';

export default function Page() {
  useTitle('Slots');
  return (
    <section className="page">
      <h1>Slots</h1>
    </section>
  );
}
