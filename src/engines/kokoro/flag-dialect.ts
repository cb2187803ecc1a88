// The speech servers' command lines (Kokoro's and Qwen3-TTS's are the same; Moonshine's
// adds --model_arch), read by Python's argparse. The model path is host-only: it names a
// host file. --host and --port are svc's own (protocol/host-only.ts). "V": takes a value.
import { type FlagDialect, groups } from '../flag-rules.js';

const SPEECH_LAN = ['--threads V', '--device V'];
const SPEECH_HOST = ['--host V', '--port V', '--model_path V'];

export const ttsDialect: FlagDialect = {
  engine: 'tts',
  underscores: false,
  argparse: true,
  groups: [...groups(true, [...SPEECH_LAN, '--default_voice V', '--default_language V']), ...groups(false, SPEECH_HOST)],
};

export const moonshineDialect: FlagDialect = {
  engine: 'moonshine',
  underscores: false,
  argparse: true,
  groups: [...groups(true, [...SPEECH_LAN, '--model_arch V']), ...groups(false, SPEECH_HOST)],
};
