// Auth mode's parts, assembled once per gateway: tokens.toml, the verifier, the proxy secret
// and the guard that decides every request (docs/auth.md).
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { SvcPaths } from '../config/paths.js';
import type { SerialQueue } from '../lib/serial-queue.js';
import { AuthGuard } from './guard.js';
import { ProxySecret } from './proxy-identity.js';
import { TokenStore } from './token-store.js';
import { TokenVerifier } from './token-verifier.js';

/** How often the files are checked when no watch event came (some filesystems send none). */
const POLL_MS = 2_000;

export class GatewayAuth {
  readonly store: TokenStore;
  readonly verifier: TokenVerifier;
  readonly proxySecret: ProxySecret;
  readonly guard: AuthGuard;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly paths: SvcPaths, writes: SerialQueue, authEnabled: () => boolean, warn: (line: string) => void) {
    this.store = new TokenStore(paths.tokensToml, writes, warn, () => this.verifier.prune());
    this.verifier = new TokenVerifier(this.store);
    this.proxySecret = new ProxySecret(paths.proxySecret);
    this.guard = new AuthGuard({ verifier: this.verifier, proxySecret: this.proxySecret, authEnabled });
  }

  /**
   * Read tokens.toml and the proxy secret, then follow both: a token added or removed by hand
   * and the secret `svc auth enable` writes count without a restart. The directory watch
   * reacts at once; the timer covers filesystems that send no watch events.
   */
  async open(): Promise<void> {
    await Promise.all([this.store.reload(), this.proxySecret.load()]);
    try {
      this.watcher = watch(dirname(this.paths.tokensToml), (_event, name) => {
        if (name === null || name === basename(this.paths.tokensToml)) void this.store.reloadIfChanged();
        if (name === null || name === basename(this.paths.proxySecret)) void this.proxySecret.reloadIfChanged();
      });
      this.watcher.on('error', () => undefined);
    } catch {
      // No watch here (the directory is missing or the filesystem has none): the timer still notices.
    }
    this.timer = setInterval(() => void this.refresh(), POLL_MS);
    this.timer.unref();
  }

  /** Re-read what changed (also after a configuration reload). */
  async refresh(): Promise<void> {
    await Promise.all([this.store.reloadIfChanged(), this.proxySecret.reloadIfChanged()]);
  }

  close(): void {
    this.watcher?.close();
    clearInterval(this.timer);
  }
}
