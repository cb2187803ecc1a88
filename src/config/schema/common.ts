// Field helpers shared by every configuration schema.
import { z } from 'zod';
import { ENV_KEY_PATTERN } from '../../protocol/vocabulary.js';
import type { ApplyClass } from '../../protocol/settings-wire.js';

// The enumerations are the wire's (src/protocol/vocabulary.ts); config schemas use them from here too.
export * from '../../protocol/vocabulary.js';

/** How a change to a key takes effect (defined with the wire shapes of /api/settings). */
export type { ApplyClass };

/** Metadata every svc.toml key carries; it feeds /api/settings/schema and docs/configuration.md. */
export interface KeyMeta {
  description: string;
  apply: ApplyClass;
  /**
   * Accepted and validated, but nothing in this release acts on it (a key of the spec whose
   * feature is not built yet). The docs list such keys in one line instead of documenting
   * them as features, and the settings schema says so, so a dashboard can grey them out.
   * On a section it covers every key under it.
   */
  unread?: true;
}

export const envVarName = () =>
  z.string().regex(ENV_KEY_PATTERN, { message: 'expected an environment variable name matching [A-Za-z_][A-Za-z0-9_]*' });

export const httpUrl = () =>
  z.string().refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, { message: 'expected an http:// or https:// URL' });

export const isoTimestamp = () =>
  z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/, { message: 'expected an ISO 8601 UTC timestamp like 2026-01-31T12:00:00Z' });
