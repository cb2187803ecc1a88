// Bearer tokens checked against tokens.toml. argon2 runs once per token: a verified token is
// remembered by the SHA-256 of the whole raw token (never the token itself) together with the
// row hash it matched, so a revoked row (gone) or a changed one (new hash) stops matching at
// once without any cache to clear. Concurrent first uses of one token share one argon2 run.
import { hash as digest } from 'node:crypto';
import { AuthError, type SvcError } from '../protocol/errors.js';
import { DEFAULT_FAILURE_LIMIT, FailureLimit } from './failure-limit.js';
import type { Identity } from './identity.js';
import { parseToken } from './token-format.js';
import type { TokenStore } from './token-store.js';

/** The argon2 binding loads on the first verification, not at start-up. */
async function argon2Verify(hash: string, secret: string): Promise<boolean> {
  const { verify } = await import('@node-rs/argon2');
  return verify(hash, secret).catch(() => false);
}

export type TokenIdentity = Extract<Identity, { kind: 'token' }>;
export type Verified = TokenIdentity | SvcError;

/** last_used_at is written at most this often per token. */
const TOUCH_EVERY_MS = 60_000;

export interface VerifierStats {
  /** argon2 verifications run (each costs ~20 ms of CPU). */
  argon2: number;
  /** Requests refused with auth.invalid. */
  invalid: number;
  /** Requests refused with auth.rate_limited. */
  rateLimited: number;
}

export class TokenVerifier {
  readonly stats: VerifierStats = { argon2: 0, invalid: 0, rateLimited: 0 };
  /** SHA-256 of a raw token → the row hash it was verified against. */
  private readonly verified = new Map<string, string>();
  private readonly pending = new Map<string, Promise<boolean>>();
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly store: TokenStore,
    private readonly limit = new FailureLimit(DEFAULT_FAILURE_LIMIT),
    private readonly now: () => number = Date.now,
  ) {}

  /** The token's identity or the refusal; synchronous for a token verified before. */
  verify(raw: string, client: string): Verified | Promise<Verified> {
    const parsed = parseToken(raw);
    const row = parsed && this.store.get(parsed.id);
    if (!parsed || !row) return this.refuse(client);
    const key = digest('sha256', raw, 'base64');
    if (this.verified.get(key) === row.hash) return this.accept(row.id, row.label, row.scope);
    const wait = this.limit.retryAfterS(client);
    if (wait > 0) return this.rateLimited(wait);
    let check = this.pending.get(key);
    if (!check) {
      this.stats.argon2 += 1;
      check = argon2Verify(row.hash, parsed.secret).finally(() => this.pending.delete(key));
      this.pending.set(key, check);
    }
    return check.then((ok) => {
      // The row may have been revoked while argon2 ran: look it up again.
      const current = this.store.get(parsed.id);
      if (!ok || current?.hash !== row.hash) return this.refuse(client);
      this.verified.set(key, row.hash);
      return this.accept(current.id, current.label, current.scope);
    });
  }

  /** Forget verified tokens whose rows are gone (called when the file changes). */
  prune(): void {
    const live = new Set(this.store.list().map((row) => row.hash));
    for (const [key, hash] of this.verified) if (!live.has(hash)) this.verified.delete(key);
  }

  private accept(id: string, label: string, scope: TokenIdentity['scope']): TokenIdentity {
    const now = this.now();
    if (now - (this.touched.get(id) ?? -Infinity) >= TOUCH_EVERY_MS) {
      this.touched.set(id, now);
      void this.store.touch([id]).catch(() => undefined);
    }
    return { kind: 'token', id, label, scope };
  }

  private refuse(client: string): SvcError {
    const wait = this.limit.retryAfterS(client);
    if (wait > 0) return this.rateLimited(wait);
    this.limit.fail(client);
    this.stats.invalid += 1;
    return new AuthError('auth.invalid', 'the bearer token is not valid (unknown, revoked or wrong); send Authorization: Bearer svc_<id>.<secret>', {});
  }

  private rateLimited(retryAfterS: number): SvcError {
    this.stats.rateLimited += 1;
    return new AuthError('auth.rate_limited', `too many failed token verifications from this client; retry in ${retryAfterS} s`, { retry_after_s: retryAfterS });
  }
}
