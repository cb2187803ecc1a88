// The Models page: the registry with its actions, registering a file by path, Hugging Face
// search with a fit mark per quant, and the pulls, live (events and each pull's own stream).
import { useTitle } from '../../router.js';
import { useModelEvents } from './queries.js';
import { Registry } from './registry.js';
import { RegisterForm } from './register-form.js';
import { HubSearch } from './search.js';
import { PullList } from './pulls.js';
import './models.css';

export default function ModelsPage() {
  useTitle('Models');
  useModelEvents();
  return (
    <section className="page models-page">
      <h1>Models</h1>
      <div className="stack">
        <Registry />
        <div className="columns">
          <HubSearch />
          <RegisterForm />
        </div>
        <PullList />
      </div>
    </section>
  );
}
