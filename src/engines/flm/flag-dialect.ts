// FastFlowLM's `flm serve` command line. LAN flags size the context, pick the power mode and
// turn the embedding and speech models on; anything else is host-only. --host and --port are
// svc's own (protocol/host-only.ts). "V": takes a value.
import { type FlagDialect, groups } from '../flag-rules.js';

export const flmDialect: FlagDialect = {
  engine: 'flm',
  underscores: false,
  argparse: false,
  groups: [...groups(true, ['--ctx-len V', '--pmode V', '--embed V', '--asr V']), ...groups(false, ['--host V', '--port V'])],
};
