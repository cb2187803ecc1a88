// The multipart body of a transcription request for audio given to transcribe_audio as a data
// URL. Only data URLs: the gateway fetches nothing on a model's say-so (a URL could point
// anywhere the gateway can reach).
import { randomUUID } from 'node:crypto';
import { RequestError } from '../protocol/errors.js';

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)?(?:;[\w-]+=[^;,]*)*;base64,([A-Za-z0-9+/=\s]*)$/;

export function transcriptionForm(dataUrl: string): { contentType: string; body: Buffer } {
  const match = DATA_URL.exec(dataUrl);
  if (!match) {
    throw new RequestError('request.invalid', 'audio_url must be a base64 data URL (data:audio/wav;base64,...)', { problems: [{ path: 'audio_url', message: 'expected a base64 data URL' }] });
  }
  const type = match[1] ?? 'application/octet-stream';
  const audio = Buffer.from(match[2]!, 'base64');
  const boundary = `svc-omni-${randomUUID()}`;
  const extension = type.split('/')[1]?.replace(/[^a-z0-9]/gi, '') || 'bin';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nsvc/stt\r\n`
    + `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="audio.${extension}"\r\nContent-Type: ${type}\r\n\r\n`;
  const body = Buffer.concat([Buffer.from(head), audio, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  return { contentType: `multipart/form-data; boundary=${boundary}`, body };
}
