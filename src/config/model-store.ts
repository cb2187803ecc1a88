// Where models are read from and pulled into, a fact of the configuration: the scan, pulls,
// slot starts, provisioning, `svc doctor` and `svc uninstall` all ask it, the last two from
// the CLI without loading the models layer.
import { join } from 'node:path';
import type { SvcPaths } from './paths.js';

/** The [models] settings that name the store (ResolvedConfig['svc']['models']). */
export interface StoreSettings {
  readonly roots: readonly string[];
  readonly store: string;
}

/** Where models are read from and pulled into: the effective store, else <state>/models. */
export function storeOf(config: { readonly svc: { readonly models: StoreSettings }; readonly paths: Pick<SvcPaths, 'stateRoot'> }): string {
  return effectiveStore(config.svc.models) ?? join(config.paths.stateRoot, 'models');
}

/** `[models].store` (or SVC_MODEL_STORE), else the first root; null when neither is set. */
export function effectiveStore(settings: StoreSettings): string | null {
  return settings.store || settings.roots[0] || null;
}
