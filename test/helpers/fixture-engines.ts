// What the integration tests of the fixture-backed engines need: the fixture engines'
// command lines for svc.toml's [engines], the audio tools (espeak-ng, ffmpeg, ffprobe)
// the fixtures and the tests use, and small polling and probing helpers.
//
// The rule for tools (as test/helpers/llama.ts): a missing tool skips the suite with a
// printed reason, except under CI=true, where it is a failure (.ci/run installs them).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { quoteWord } from '../../src/lib/shell-words.js';
import { REPO_ROOT } from './gateway.js';

export const FIXTURES = join(REPO_ROOT, 'test/fixtures');

/** The command line that starts a fixture engine: this node and the fixture's file. */
export const fixtureCommand = (file: string) => `${quoteWord(process.execPath)} ${quoteWord(join(FIXTURES, file))}`;

/** An [engines] table pointing every engine svc cannot run here at its fixture. */
export function enginesToml(): string {
  const lines = Object.entries({ kokoro: 'kokoro-engine.mjs', qwen3tts: 'qwen3tts-engine.mjs', moonshine: 'moonshine-engine.mjs', flm: 'flm-engine.mjs' })
    .map(([engine, file]) => `${engine} = ${JSON.stringify(fixtureCommand(file))}`);
  return `[engines]\n${lines.join('\n')}\n`;
}

const AUDIO_TOOLS = [['espeak-ng', '--version'], ['ffmpeg', '-version'], ['ffprobe', '-version']] as const;

/**
 * Why the audio tools cannot be used (undefined when they can). Under CI=true a missing
 * tool throws instead: CI installs them, so a skip there would hide a broken setup.
 */
export function audioToolsMissing(): string | undefined {
  const missing = AUDIO_TOOLS.filter(([tool, flag]) => spawnSync(tool, [flag], { stdio: 'ignore' }).status !== 0).map(([tool]) => tool);
  if (missing.length === 0) return undefined;
  const why = `${missing.join(', ')} not installed (apt-get install espeak-ng ffmpeg)`;
  if (process.env.CI === 'true') throw new Error(`${why}; CI must install them (.ci/run)`);
  console.warn(`SKIPPED: ${why}`);
  return why;
}

export interface AudioProbe {
  format: string;
  codec: string;
  sampleRate: number;
  channels: number;
}

/** ffprobe's view of audio bytes; throws when they are not audio. (No duration: a streamed WAV does not say; use decodedSeconds.) */
export function probeAudio(bytes: Buffer): AudioProbe {
  const args = ['-v', 'error', '-show_entries', 'format=format_name:stream=codec_type,codec_name,sample_rate,channels', '-of', 'json', '-i', 'pipe:0'];
  const result = spawnSync('ffprobe', args, { input: bytes, encoding: 'buffer', maxBuffer: 1 << 24 });
  if (result.status !== 0) throw new Error(`ffprobe cannot read the audio: ${result.stderr.toString()}`);
  const info = JSON.parse(result.stdout.toString()) as { format: { format_name: string }; streams: Array<{ codec_type: string; codec_name: string; sample_rate: string; channels: number }> };
  const stream = info.streams.find((s) => s.codec_type === 'audio');
  if (!stream) throw new Error('no audio stream');
  return { format: info.format.format_name, codec: stream.codec_name, sampleRate: Number(stream.sample_rate), channels: stream.channels };
}

/** Decode audio bytes completely with ffmpeg (to 16 kHz mono PCM); the seconds of sound it held. */
export function decodedSeconds(bytes: Buffer, inputFormat?: string): number {
  const input = inputFormat ? ['-f', inputFormat, '-ar', '24000', '-ac', '1'] : [];
  const result = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', ...input, '-i', 'pipe:0', '-f', 's16le', '-ac', '1', '-ar', '16000', 'pipe:1'], { input: bytes, encoding: 'buffer', maxBuffer: 1 << 26 });
  if (result.status !== 0) throw new Error(`ffmpeg cannot decode the audio: ${result.stderr.toString()}`);
  return result.stdout.length / 2 / 16000;
}
