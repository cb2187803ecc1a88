// Answer shapes of /api/settings (docs/api.md, "GET /api/settings" and after), shared by the
// server and the dashboard's Settings page, so a changed payload breaks the page's typecheck.

/** How a change to a key takes effect: at once, after a service restart, or after a manual restart. */
export type ApplyClass = 'live' | `restart:${string}` | 'manual';

/** One svc.toml key as GET /api/settings/schema describes it. */
export interface SettingDescription {
  key: string;
  section: string;
  type: string;
  nullable: boolean;
  default: unknown;
  minimum?: number;
  maximum?: number;
  exclusive_minimum?: number;
  enum?: readonly unknown[];
  description: string;
  apply_class: ApplyClass;
  /** Present on keys nothing reads yet (KeyMeta.unread): accepted and validated only. */
  unread?: true;
}

/** GET /api/settings/apply-plan, and the `apply` of a PUT's answer. */
export interface ApplyPlan {
  /** Per key, how a change takes effect. */
  keys: Record<string, ApplyClass>;
  /** The same, grouped: keys applied at once, per service to restart, and needing a manual restart. */
  live: string[];
  restart: Record<string, string[]>;
  manual: string[];
}

/** svc.toml as running: tables of keys (the page reads it through the schema's dotted keys). */
export type SettingsTree = Record<string, unknown>;

/** GET /api/settings. */
export interface SettingsPayload {
  settings: SettingsTree;
  file: string;
  /** Keys an environment variable overrides (the value is the variable's, parsed). */
  env_overrides: Array<{ key: string; env: string; value: unknown }>;
}

/** GET /api/settings/schema. */
export interface SettingsSchemaPayload {
  keys: SettingDescription[];
  json_schema: Record<string, unknown>;
}

/** PUT /api/settings: the new settings, the dotted keys the body set, and their apply plan. */
export interface SettingsUpdatePayload {
  settings: SettingsTree;
  changed: string[];
  apply: ApplyPlan;
}

/** POST /api/settings/reload. */
export interface SettingsReloadPayload {
  reloaded: true;
  warnings: string[];
  slots: string[];
}
