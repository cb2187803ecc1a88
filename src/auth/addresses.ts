// Client addresses. Loopback is all of 127.0.0.0/8 and ::1, also in their IPv4-mapped form.
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return v4.startsWith('127.') || address === '::1';
}
