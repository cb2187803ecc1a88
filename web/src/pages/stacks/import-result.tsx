// What an import did: the stack added, the profiles added or kept, and whether each model is here.
import type { StackImportPayload } from '../../../../src/protocol/stacks.js';
import { Link } from '../../router.js';

const MODEL_WORDS = { present: 'here', pullable: 'pullable (apply with pull, or pull it on the Models page)', unresolvable: 'unresolvable: register it before applying' };

export function ImportResult({ result }: { result: StackImportPayload }) {
  const { stack, profiles_added, profiles_kept, models } = result;
  return (
    <div role="status" data-testid="import-result" data-slug={stack.slug}>
      <p>
        Imported <code>{stack.slug}</code> ({stack.name}); the gateway verified its checksum. <Link to={`/stacks/apply/${encodeURIComponent(stack.slug)}`}>Plan & apply it</Link>
      </p>
      <dl className="facts">
        <dt>profiles added</dt>
        <dd>{profiles_added.join(', ') || 'none'}</dd>
        <dt>profiles kept</dt>
        <dd title="a profile of the same name is here already and was kept as it is">{profiles_kept.join(', ') || 'none'}</dd>
        {models.map((model) => (
          <ModelFacts key={model.id} id={model.id} status={model.status} />
        ))}
      </dl>
    </div>
  );
}

function ModelFacts({ id, status }: { id: string; status: keyof typeof MODEL_WORDS }) {
  return (
    <>
      <dt>model {id}</dt>
      <dd className={status === 'present' ? '' : 'warn-note'} data-testid={`import-model-${id}`}>
        {MODEL_WORDS[status]}
      </dd>
    </>
  );
}
