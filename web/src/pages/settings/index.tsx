// PLACEHOLDER (being built): the Settings page.
import { useTitle } from '../../router.js';

export default function Page() {
  useTitle('Settings');
  return (
    <section className="page">
      <h1>Settings</h1>
    </section>
  );
}
