// Which events a caller may see on /api/events and /api/events/stream. The routes themselves
// need the read class, so a v1-only token sees no event at all; beyond that, token changes
// (auth.* events and their activity rows) are for admins only, as token management is.
import type { SvcEvent } from '../protocol/events.js';
import { type Identity, scopeOf } from './identity.js';

export function eventVisibleTo(event: SvcEvent, identity: Identity, authEnabled: boolean): boolean {
  if (!authEnabled || scopeOf(identity) === 'admin') return true;
  if (event.type.startsWith('auth.')) return false;
  return !(event.type === 'activity' && String((event.data as { action?: unknown }).action).startsWith('auth.'));
}
