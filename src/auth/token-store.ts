// tokens.toml, held in memory: the rows the guard looks ids up in, and the one writer of the
// file (mode 0600, atomic). GatewayAuth re-reads it when it changes on disk, so a row added
// or removed by hand counts without a restart; an invalid file counts as no tokens at all
// (fail closed), never as the rows it had before.
import { stat } from 'node:fs/promises';
import { writeFileAtomic } from '../config/atomic.js';
import { formatProblem } from '../config/problems.js';
import { tokenRules } from '../config/rules.js';
import { TokensFileSchema, type TokenRow, type TokensFile } from '../config/schema/tokens.js';
import type { SerialQueue } from '../lib/serial-queue.js';
import { readTomlFile, stringifyToml } from '../config/toml.js';
import { validateDocument } from '../config/validate.js';
import { AuthError, ConfigError } from '../protocol/errors.js';
import type { TokenScope } from '../protocol/vocabulary.js';
import { newToken } from './token-format.js';

export interface CreatedToken {
  readonly row: TokenRow;
  /** The raw token, shown once. */
  readonly token: string;
}

/** Concurrent hand edits are re-read this many times before a change is written anyway. */
const MAX_UPDATE_ATTEMPTS = 5;

const nowIso = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export class TokenStore {
  private rows = new Map<string, TokenRow>();
  private fileIdentity = '';

  constructor(
    private readonly path: string,
    private readonly writes: SerialQueue,
    private readonly warn: (line: string) => void = () => undefined,
    private readonly onReload: () => void = () => undefined,
  ) {}

  get(id: string): TokenRow | undefined {
    return this.rows.get(id);
  }

  list(): TokenRow[] {
    return [...this.rows.values()];
  }

  /** Re-read the file when its inode, size or mtime differ from the last read. */
  async reloadIfChanged(): Promise<void> {
    if ((await this.identity()) !== this.fileIdentity) await this.reload();
  }

  async create(label: string, scope: TokenScope): Promise<CreatedToken> {
    const secretHash = (secret: string) => import('@node-rs/argon2').then((argon2) => argon2.hash(secret));
    return this.update(async (file) => {
      if (file.tokens.some((row) => row.label === label)) throw new AuthError('auth.duplicate_label', `a token labelled ${JSON.stringify(label)} exists; labels are unique`, { label });
      const token = newToken(new Set(file.tokens.map((row) => row.id)));
      const row: TokenRow = { id: token.id, label, scope, hash: await secretHash(token.secret), created_at: nowIso(), last_used_at: null };
      return { next: { ...file, tokens: [...file.tokens, row] }, result: { row, token: token.raw } };
    });
  }

  async revoke(id: string): Promise<TokenRow> {
    return this.update(async (file) => {
      const row = file.tokens.find((r) => r.id === id);
      if (!row) throw new AuthError('auth.unknown_token', `no token has id ${JSON.stringify(id)}`, { id });
      return { next: { ...file, tokens: file.tokens.filter((r) => r.id !== id) }, result: row };
    });
  }

  /** Record last_used_at for these ids (the verifier calls this at most once a minute per token). */
  async touch(ids: readonly string[], at = nowIso()): Promise<void> {
    const wanted = new Set(ids);
    await this.update(async (file) => {
      if (!file.tokens.some((row) => wanted.has(row.id))) return { result: undefined };
      return { next: { ...file, tokens: file.tokens.map((row) => (wanted.has(row.id) ? { ...row, last_used_at: at } : row)) }, result: undefined };
    });
  }

  /**
   * Read, change and write the file in the writer queue. The file may also be edited by hand
   * while a change is computed (argon2 takes ~20 ms): if it changed on disk between the read
   * and the write, the change is computed again from the new content, so a hand edit (a token
   * removed) is not overwritten with the rows read before it. (Nothing locks a hand editor
   * out: one that renames its file in the instant between the last check and svc's rename
   * still loses to svc's write.)
   */
  private async update<T>(change: (file: TokensFile) => Promise<{ next?: TokensFile; result: T }>): Promise<T> {
    return this.writes.run(async () => {
      for (let attempt = 1; ; attempt++) {
        const before = await this.identity();
        const { next, result } = await change(await this.readForWrite());
        if (!next) return result;
        // Checked again just before the rename (after the write and its fsync): a hand edit can
        // then be lost only in the moment between that check and the rename itself.
        const stillCurrent = async () => attempt >= MAX_UPDATE_ATTEMPTS || (await this.identity()) === before;
        if (!(await writeFileAtomic(this.path, stringifyToml(next as unknown as Record<string, unknown>), { mode: 0o600, forceMode: true, stillCurrent }))) continue;
        await this.reload();
        return result;
      }
    });
  }

  private async identity(): Promise<string> {
    const info = await stat(this.path).catch(() => undefined);
    return info ? `${info.ino}:${info.size}:${info.mtimeMs}` : 'missing';
  }

  async reload(): Promise<void> {
    this.fileIdentity = await this.identity();
    const file = await this.read();
    this.rows = new Map((file?.tokens ?? []).map((row) => [row.id, row]));
    this.onReload();
  }

  /** The file's rows; undefined (after a warning) when it is not valid. */
  private async read(): Promise<TokensFile | undefined> {
    const read = await readTomlFile(this.path, 'tokens.toml');
    if (read.status === 'missing') return TokensFileSchema.parse({});
    const problems = read.status === 'invalid' ? [read.problem] : [];
    const result = read.status === 'ok' ? validateDocument(TokensFileSchema, read.doc, 'tokens.toml') : undefined;
    problems.push(...(result?.problems ?? []), ...(read.status === 'ok' ? tokenRules(read.doc) : []));
    const errors = problems.filter((p) => p.severity === 'error');
    if (errors.length === 0 && result?.value) return result.value;
    this.warn(`svc: warning: tokens.toml is not valid, so no token is accepted until it is fixed: ${errors.map(formatProblem).join('; ')}`);
    return undefined;
  }

  private async readForWrite(): Promise<TokensFile> {
    const file = await this.read();
    if (!file) throw new ConfigError('config.invalid', 'tokens.toml is not valid; fix it on the host (svc config edit tokens.toml) before changing tokens', { file: 'tokens.toml' });
    return file;
  }
}
