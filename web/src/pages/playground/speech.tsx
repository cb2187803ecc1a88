// Speech: text to audio, played from the returned bytes through an object URL (revoked when
// replaced or when the page goes), with the engine's voice and speed when given.
import { useEffect, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Field } from '../../components/field.js';
import { problemsOfError } from '../../field-problems.js';
import type { ModelOption } from './model-kinds.js';
import { ToolForm } from './tool-form.js';
import { postForBlob } from './v1-client.js';

/** An object URL for a Blob, revoked when the Blob changes or the component unmounts. */
function useObjectUrl(blob: Blob | undefined): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!blob) return setUrl(null);
    const made = URL.createObjectURL(blob);
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [blob]);
  return url;
}

export function Speech(props: { options: readonly ModelOption[]; model: string; onModel: (id: string) => void }) {
  const [input, setInput] = useState('Hello from svc.');
  const [voice, setVoice] = useState('');
  const [speed, setSpeed] = useState('');
  const run = useMutation({
    // Blank voice and speed are left out: the slot's defaults, else the engine's, apply.
    mutationFn: () => postForBlob('/v1/audio/speech', { model: props.model, input, ...(voice.trim() && { voice: voice.trim() }), ...(speed.trim() && { speed: Number(speed) }) }),
  });
  const url = useObjectUrl(run.data?.body);
  const problems = problemsOfError(run.error);
  const speedProblem = speed.trim() !== '' && !(Number(speed) >= 0.25 && Number(speed) <= 4) ? 'a number from 0.25 to 4' : problems.speed;
  return (
    <ToolForm tool="speech" title="Speech" action="Speak" ready={input.trim() !== '' && speedProblem === undefined} busy={run.isPending} onRun={() => run.mutate()} error={run.error} timing={run.data?.timing ?? null} {...props}
      result={
        url && (
          <p>
            <audio controls src={url} data-testid="speech-audio" aria-label="the spoken text" />
            <span className="muted"> {run.data?.body.type || 'audio'}</span>
          </p>
        )
      }
    >
      <Field label="Text" path="input" problem={problems.input}>
        <textarea rows={3} value={input} onChange={(e) => setInput(e.target.value)} data-testid="speech-input" />
      </Field>
      <div className="playground-pair">
        <Field label="Voice" path="voice" hint="blank: the slot's default_voice, else the engine's" problem={problems.voice}>
          <input value={voice} onChange={(e) => setVoice(e.target.value)} />
        </Field>
        <Field label="Speed" path="speed" hint="0.25 to 4; blank: the default" problem={speedProblem}>
          <input inputMode="decimal" value={speed} onChange={(e) => setSpeed(e.target.value)} />
        </Field>
      </div>
    </ToolForm>
  );
}
