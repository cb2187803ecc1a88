// The answer of POST /api/mcp/<id>/test: whether svc could connect, the tools it found and
// how long that took. Nothing is called.
import type { McpTestPayload } from '../../../../src/protocol/mcp.js';

export function TestResult({ result }: { result: McpTestPayload }) {
  return (
    <div className="card" data-testid="test-result" data-ok={result.ok}>
      <h2>Test</h2>
      <p data-testid="test-summary">
        {result.ok ? (
          <>
            <strong className="ok-text">connected</strong> in {result.ms} ms: {result.tools.length} tool{result.tools.length === 1 ? '' : 's'}, {result.resources} resources,{' '}
            {result.prompts} prompts{result.server_version && <> (version {result.server_version})</>}
          </>
        ) : (
          <>
            <strong className="error-text">failed</strong> after {result.ms} ms
          </>
        )}
      </p>
      {result.error && <p className="error-note">{result.error}</p>}
      {result.tools.length > 0 && (
        <ul className="tool-names" data-testid="test-tools">
          {result.tools.map((tool) => (
            <li key={tool.name}>
              <code>{tool.name}</code>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
