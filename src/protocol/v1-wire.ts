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

/** A raw model id: a local engine's (owned_by its slot's name) or a remote endpoint's. */
export interface UpstreamModelEntry {
  id: string;
  object: 'model';
  created: number;
  /** The slot's, provider's or upstream's name. */
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

export type ModelEntry = SlotAliasEntry | UpstreamModelEntry | VirtualModelEntry;

export interface ModelList {
  object: 'list';
  data: ModelEntry[];
}
