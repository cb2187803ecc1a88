// Who may call a route. Every route declares one of these when it is registered, so the
// auth guard (auth mode) can decide from the route alone; a test fails on a route without.
// The scope table in SPEC.md, Authentication, maps token scopes onto these classes.
export const ROUTE_ACCESS = ['public', 'read', 'write', 'admin', 'v1'] as const;
export type RouteAccess = (typeof ROUTE_ACCESS)[number];
