// svc token create|list|revoke: API tokens for auth mode (docs/auth.md). The raw token is
// printed once, by create; list shows ids, labels and scopes only.
import type { ApiClient } from '../client.js';
import { print, printJson, table, warn } from '../output.js';

/** What a token does in default mode: nothing yet, since no credential is checked there (docs/auth.md). */
export const DEFAULT_MODE_NOTE = 'auth mode is off (default mode): the gateway checks no bearer tokens, so every request is accepted, with this token, a wrong one or none (by design, docs/auth.md); the token counts once auth mode is on (svc auth enable)';

export async function tokenCreate(client: ApiClient, options: { label: string; scope: string; json?: boolean }): Promise<void> {
  const created = await client.createToken(options.label, options.scope);
  // The mode, asked after the create (a public route): a gateway that cannot say leaves the note out.
  const authEnabled = await client.authStatus().then((status) => status.enabled, () => true);
  if (options.json) printJson(created);
  else print(created.token);
  if (!options.json) warn(`token ${created.id} (${created.label}, scope ${created.scope}) created. ${created.warning}`);
  if (!authEnabled) warn(DEFAULT_MODE_NOTE);
}

export async function tokenList(client: ApiClient, options: { json?: boolean }): Promise<void> {
  const { tokens } = await client.listTokens();
  if (options.json) return printJson({ tokens });
  if (tokens.length === 0) return print('no tokens (svc token create --label NAME --scope SCOPE makes one)');
  const rows = tokens.map((t) => [t.id, t.label, t.scope, t.created_at, t.last_used_at ?? 'never']);
  for (const line of table(['ID', 'LABEL', 'SCOPE', 'CREATED', 'LAST USED'], rows)) print(line);
}

export async function tokenRevoke(client: ApiClient, id: string, options: { json?: boolean }): Promise<void> {
  const { revoked } = await client.revokeToken(id);
  if (options.json) return printJson({ revoked });
  print(`token ${revoked.id} (${revoked.label}) revoked; requests with it now get 401 auth.invalid`);
}
