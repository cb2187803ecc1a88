// PLACEHOLDER (being built): the Profiles & stacks page.
import { useTitle } from '../../router.js';

export default function Page() {
  useTitle('Profiles & stacks');
  return (
    <section className="page">
      <h1>Profiles & stacks</h1>
    </section>
  );
}
