// PLACEHOLDER (being built): the Activity page.
import { useTitle } from '../../router.js';

export default function Page() {
  useTitle('Activity');
  return (
    <section className="page">
      <h1>Activity</h1>
    </section>
  );
}
