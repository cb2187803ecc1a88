// What the caller may do, from GET /api/auth/whoami: pages hide or disable what the server
// would refuse (a read-only token's buttons, a LAN client's host-only keys). The server
// stays the only authority; this only saves the user a refused click.
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { RouteAccess } from '../../src/protocol/access.js';
import type { WhoAmIPayload } from '../../src/protocol/auth.js';
import { getJson } from './api-error.js';

export const whoamiQuery = queryOptions({ queryKey: ['whoami'], queryFn: ({ signal }) => getJson<WhoAmIPayload>('/api/auth/whoami', signal) });

export interface Access {
  /**
   * Whether requests of this access class pass: false until whoami answers (so no page asks
   * for what it would be refused), true when whoami itself failed (the server still decides).
   */
  can(access: RouteAccess): boolean;
  /** Why a control is disabled, for its title; undefined when it is not. */
  why(access: RouteAccess): string | undefined;
  hostAuthority: boolean;
  /** Whether whoami has answered (or failed): until then every `can` is false. */
  settled: boolean;
  who: WhoAmIPayload | undefined;
}

const REASONS: Partial<Record<RouteAccess, string>> = {
  write: 'your token is read-only: changes need an admin token',
  'token-admin': 'token management needs this host or an admin token',
  v1: 'your token may not call the inference API',
};

export function accessFrom(who: WhoAmIPayload | undefined, pending = false): Access {
  const can = (access: RouteAccess) => !pending && (who === undefined || who.grants.includes(access));
  return {
    can,
    why: (access) => (can(access) ? undefined : pending ? 'checking what you may do' : (REASONS[access] ?? `needs ${access} access`)),
    hostAuthority: !pending && (who?.host_authority ?? true),
    settled: !pending,
    who,
  };
}

export function useAccess(): Access {
  const { data, isPending } = useQuery(whoamiQuery);
  return accessFrom(data, isPending);
}
