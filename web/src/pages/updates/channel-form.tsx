// The update channel: stable follows the package's `latest` dist-tag, nightly its `nightly`
// tag. Saving it installs nothing; it only picks what a check and an apply follow.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { PutChannelRequestSchema, type UpdateChannel } from '../../../../src/protocol/updates.js';
import { UPDATE_CHANNELS } from '../../../../src/protocol/vocabulary.js';
import { sendJson } from '../../api-error.js';
import { useAccess } from '../../access.js';
import { ErrorNote } from '../../components/error-note.js';
import { Field } from '../../components/field.js';
import { problemsOfError, problemsOfIssues } from '../../field-problems.js';
import { channelQuery, checkQuery } from './queries.js';

export function ChannelForm() {
  const access = useAccess();
  const queries = useQueryClient();
  const channel = useQuery(channelQuery);
  const [picked, setPicked] = useState<string | null>(null);
  const value = picked ?? channel.data?.channel ?? '';
  const parsed = PutChannelRequestSchema.safeParse({ channel: value });
  const save = useMutation({
    mutationFn: (next: UpdateChannel) => sendJson<{ channel: UpdateChannel }>('PUT', '/api/updates/channel', { channel: next }),
    onSuccess: (answer) => {
      queries.setQueryData(channelQuery.queryKey, answer);
      setPicked(null);
      // What the channel offers changed: a check already shown is asked again.
      if (queries.getQueryData(checkQuery.queryKey)) void queries.refetchQueries({ queryKey: checkQuery.queryKey });
    },
  });
  const problem = (parsed.success ? undefined : problemsOfIssues(parsed.error.issues).channel) ?? problemsOfError(save.error).channel;
  return (
    <form
      className="update-channel"
      onSubmit={(event) => {
        event.preventDefault();
        if (parsed.success) save.mutate(parsed.data.channel);
      }}
    >
      {channel.error && <ErrorNote error={channel.error} />}
      <Field label="Channel" problem={problem} hint="stable follows the latest release; nightly the nightly builds">
        <select value={value} onChange={(event) => setPicked(event.target.value)} disabled={!channel.data} data-testid="update-channel">
          {UPDATE_CHANNELS.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </Field>
      <button type="submit" disabled={!parsed.success || value === channel.data?.channel || save.isPending || !access.can('write')} title={access.why('write')}>
        {save.isPending ? 'Saving…' : 'Save channel'}
      </button>
      {save.error && !problem && <ErrorNote error={save.error} />}
    </form>
  );
}
