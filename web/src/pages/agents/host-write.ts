// Who may install, upgrade or uninstall an agent from the page: the server refuses those
// without the write grant (a read-only token) and without host authority (a LAN client with
// no admin token: config.host_only), since they run npm or a runtime on the gateway's host.
import type { Access } from '../../access.js';

export const HOST_ONLY = 'installing or removing an agent runs a program on the gateway\'s host: this host or an admin token only';

/** Why the install, upgrade and uninstall controls are disabled (undefined: they are not). */
export const hostWriteWhy = (access: Access): string | undefined => access.why('write') ?? (access.hostAuthority ? undefined : HOST_ONLY);
