// Version order as semver defines it (major.minor.patch, then a pre-release sorts before
// its release; identifiers compare numerically when both are numbers). No ranges: svc only
// compares the version it runs with the ones a registry offers.
const PATTERN = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

export function isVersion(text: string): boolean {
  return PATTERN.test(text);
}

export function compareVersions(a: string, b: string): number {
  const pa = PATTERN.exec(a);
  const pb = PATTERN.exec(b);
  if (!pa || !pb) throw new Error(`not a version: ${pa ? b : a}`);
  for (let i = 1; i <= 3; i++) {
    const d = Number(pa[i]) - Number(pb[i]);
    if (d !== 0) return Math.sign(d);
  }
  const [preA, preB] = [pa[4], pb[4]];
  if (preA === undefined || preB === undefined) return preA === preB ? 0 : preA === undefined ? 1 : -1;
  const [xa, xb] = [preA.split('.'), preB.split('.')];
  for (let i = 0; i < Math.max(xa.length, xb.length); i++) {
    if (xa[i] === undefined) return -1;
    if (xb[i] === undefined) return 1;
    const [na, nb] = [/^\d+$/.test(xa[i]!), /^\d+$/.test(xb[i]!)];
    if (na && nb && Number(xa[i]) !== Number(xb[i])) return Math.sign(Number(xa[i]) - Number(xb[i]));
    if (na !== nb) return na ? -1 : 1;
    if (!na && xa[i] !== xb[i]) return xa[i]! < xb[i]! ? -1 : 1;
  }
  return 0;
}
