// Transcription: an audio file uploaded as multipart (file and model), and the text back.
import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Field } from '../../components/field.js';
import type { ModelOption } from './model-kinds.js';
import { ToolForm } from './tool-form.js';
import { postForm } from './v1-client.js';

export function Transcription(props: { options: readonly ModelOption[]; model: string; onModel: (id: string) => void }) {
  const [file, setFile] = useState<File | null>(null);
  const run = useMutation({
    mutationFn: (audio: File) => {
      const form = new FormData();
      form.append('model', props.model);
      form.append('file', audio, audio.name);
      return postForm<{ text?: string }>('/v1/audio/transcriptions', form);
    },
  });
  return (
    <ToolForm tool="transcription" title="Transcription" action="Transcribe" ready={file !== null} busy={run.isPending} onRun={() => file && run.mutate(file)} error={run.error} timing={run.data?.timing ?? null} {...props}
      result={
        run.data && (
          <blockquote className="playground-quote" data-testid="transcription-text">
            {run.data.body.text ?? JSON.stringify(run.data.body)}
          </blockquote>
        )
      }
    >
      <Field label="Audio file" path="file" hint="wav, mp3, flac, ogg, … as the engine takes them">
        <input type="file" accept="audio/*" onChange={(e) => setFile(e.target.files?.[0] ?? null)} data-testid="transcription-file" />
      </Field>
    </ToolForm>
  );
}
