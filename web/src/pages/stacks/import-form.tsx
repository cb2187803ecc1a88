// Import a stack from an exported .svcstack.json: the file is read and its checksum checked
// here first, then the gateway checks it again, adds the stack (under another slug if given)
// and the profiles it lacks, and says whether each model is here.
import { useState, type ChangeEvent, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ImportStackRequestSchema, type StackImportPayload } from '../../../../src/protocol/stacks.js';
import { ApiError, sendJson } from '../../api-error.js';
import { useAccess } from '../../access.js';
import { Field } from '../../components/field.js';
import { ErrorNote } from '../../components/error-note.js';
import { problemsOfIssues } from '../../field-problems.js';
import { checkChecksum, readEnvelopeText, type ChecksumResult, type EnvelopeFacts } from './envelope-check.js';
import { ImportResult } from './import-result.js';
import { stacksQuery } from './queries.js';

const CHECKSUM_WORDS: Record<ChecksumResult, string> = {
  matches: 'matches its stack (checked here)',
  differs: 'does NOT match its stack: the file was changed after export, and the gateway will refuse it',
  unchecked: 'not checked here (this browser has no WebCrypto over plain http); the gateway checks it',
};

export function ImportForm() {
  const access = useAccess();
  const queries = useQueryClient();
  const [file, setFile] = useState<{ facts: EnvelopeFacts; fileName: string; checksum: ChecksumResult } | { problem: string } | null>(null);
  const [slug, setSlug] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<StackImportPayload | null>(null);
  const slugProblem = slug ? problemsOfIssues(ImportStackRequestSchema.safeParse({ envelope: null, slug }).error?.issues ?? []).slug : undefined;
  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    setError(null);
    setResult(null);
    const input = event.target;
    const chosen = input.files?.[0];
    if (!chosen) return setFile(null);
    const facts = readEnvelopeText(await chosen.text());
    setFile('problem' in facts ? facts : { facts, fileName: chosen.name, checksum: await checkChecksum(facts.envelope) });
    // Cleared, so that choosing the same file again (edited since) is read again.
    input.value = '';
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!file || 'problem' in file || slugProblem) return;
    setError(null);
    try {
      setResult(await sendJson<StackImportPayload>('POST', '/api/stacks/import', { envelope: file.facts.envelope, ...(slug && { slug }) }));
      await queries.invalidateQueries({ queryKey: stacksQuery.queryKey });
    } catch (failure) {
      setError(failure);
    }
  };
  const refusedChecksum = error instanceof ApiError && error.code === 'stacks.bad_envelope' && 'checksum' in error.details;
  return (
    <form className="card" onSubmit={submit} aria-labelledby="import-title" data-testid="import-form">
      <h3 id="import-title">Import a stack</h3>
      <Field label="Stack file (.svcstack.json)" problem={file && 'problem' in file ? file.problem : undefined} path="file">
        <input type="file" accept=".json,application/json" onChange={choose} data-testid="import-file" />
      </Field>
      {file && 'facts' in file && (
        <dl className="facts" data-testid="import-facts">
          <dt>file</dt>
          <dd>{file.fileName}</dd>
          <dt>stack</dt>
          <dd>
            <code>{file.facts.slug}</code> {file.facts.name} · {file.facts.rows} row{file.facts.rows === 1 ? '' : 's'}
          </dd>
          <dt>exported</dt>
          <dd>
            svc {file.facts.envelope.svc_version} · {file.facts.envelope.exported_at}
          </dd>
          <dt>checksum</dt>
          <dd className={`checksum checksum-${file.checksum}`} data-testid="import-checksum" data-result={file.checksum} title={file.facts.envelope.checksum}>
            {CHECKSUM_WORDS[file.checksum]}
          </dd>
        </dl>
      )}
      <Field label="Import as slug" hint="leave empty to keep the file's own slug" problem={slugProblem} path="slug">
        <input value={slug} onChange={(e) => setSlug(e.target.value)} autoComplete="off" data-testid="import-slug" />
      </Field>
      {refusedChecksum && <p className="error-note">The gateway found the checksum does not match: the file was changed after export.</p>}
      {error !== null && <ErrorNote error={error} />}
      {result && <ImportResult result={result} />}
      <div className="actions">
        <button type="submit" className="primary" disabled={!access.can('write') || !file || 'problem' in file || slugProblem !== undefined} title={access.why('write')}>
          Import
        </button>
      </div>
    </form>
  );
}
