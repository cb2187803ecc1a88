// tokens.toml: API token rows for auth mode (docs/configuration.md, "tokens.toml"). Only argon2id hashes of
// secrets are stored; the raw token is shown once at creation.
import { z } from 'zod';
import { isoTimestamp, TOKEN_SCOPES } from './common.js';

export const TokenRowSchema = z.strictObject({
  id: z.string().regex(/^[0-9a-f]{8,32}$/, { message: 'expected 8-32 lowercase hex characters' }),
  label: z.string().min(1).max(128),
  scope: z.enum(TOKEN_SCOPES).default('all'),
  hash: z.string().startsWith('$argon2id$', { message: 'expected an argon2id hash ("$argon2id$...")' }),
  created_at: isoTimestamp(),
  last_used_at: isoTimestamp().nullable().default(null),
});

export const TokensFileSchema = z.strictObject({
  schema_version: z.int().min(1).default(1),
  tokens: z.array(TokenRowSchema).default([]),
});

export type TokenRow = z.output<typeof TokenRowSchema>;
export type TokensFile = z.output<typeof TokensFileSchema>;
