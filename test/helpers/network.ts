// An address of this machine that is not loopback, so a test can be a LAN client of a
// gateway bound to 0.0.0.0: the gateway then sees that address as the peer, not 127.0.0.1.
import { networkInterfaces } from 'node:os';

export function nonLoopbackAddress(): string | undefined {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
  }
  return undefined;
}

/** Why a test that needs a LAN address cannot run; under CI=true the caller fails instead of skipping. */
export const NO_LAN_ADDRESS = 'this machine has no non-loopback IPv4 address, so no request can come from a LAN client';
