// The sentence under an update check: an update, up to date, or why neither can be said (a
// registry without the package, a channel with no version yet). "Up to date" only when the
// registry offered a version that is not newer.
import type { UpdateCheckPayload } from '../../../../src/protocol/updates.js';

export type Verdict = { kind: 'available' | 'current' | 'unknown'; text: string };

export function checkVerdict(check: Pick<UpdateCheckPayload, 'update_available' | 'published' | 'latest' | 'current' | 'channel' | 'package' | 'registry'>): Verdict {
  if (check.update_available) return { kind: 'available', text: `svc ${check.latest} is available.` };
  if (!check.published) return { kind: 'unknown', text: `${check.package} is not on the registry ${check.registry}, so whether an update exists cannot be told (SVC_NPM_REGISTRY names the registry the gateway asks).` };
  if (check.latest === null) return { kind: 'unknown', text: `The ${check.channel} channel has no version yet: nothing to update to.` };
  return { kind: 'current', text: `svc ${check.current} is up to date on the ${check.channel} channel.` };
}
