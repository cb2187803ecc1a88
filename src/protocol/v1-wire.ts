// Wire shapes of GET /v1/models (docs/api.md, "GET /v1/models"), shared by the server
// (src/dispatch/model-list.ts builds them) and the dashboard's Playground, which picks the
// models each of its tools offers from them.

/** One per enabled llm slot that is served now: the slot's name as a model id. */
export interface SlotAliasEntry {
  id: string;
  object: 'model';
  created: number;
  owned_by: 'svc';
  /** `<slot> · <model id>` */
  name: string;
  context_length: number | null;
}

/**
 * A raw model id a local engine serves (a slot of another type than llm): svc serves it, as
 * it serves the aliases, so it is owned_by svc; `slot` names the slot and `name` reads as an
 * alias's does.
 */
export interface LocalModelEntry {
  id: string;
  object: 'model';
  created: number;
  owned_by: 'svc';
  /** `<slot> · <model id>` */
  name: string;
  slot: string;
}

/** A raw model id of a remote endpoint (or a replica group's): owned_by the provider's, upstream's name (svc for a group). */
export interface UpstreamModelEntry {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

/** An svc/* name that resolves to an enabled slot right now. */
export interface VirtualModelEntry {
  id: string;
  object: 'model';
  created: number;
  owned_by: 'svc';
  context_length: number | null;
  _hal0: { virtual: true; kind: 'live-resolve'; resolves_to: string; device: string };
}

export type ModelEntry = SlotAliasEntry | LocalModelEntry | UpstreamModelEntry | VirtualModelEntry;

export interface ModelList {
  object: 'list';
  data: ModelEntry[];
}
