// The one error catalogue. Every failure svc reports, over HTTP or on the command line,
// carries one of these codes; each code has exactly one HTTP status. docs/errors.md lists
// the same table, and errors.test.ts fails when the two disagree.
import { boundedEnvelope } from './input-bounds.js';

export interface ErrorCodeInfo {
  readonly status: number;
  readonly when: string;
}

export const ERROR_CODES = {
  'request.invalid_json': { status: 400, when: 'The body is not valid JSON.' },
  'request.not_an_object': { status: 400, when: 'The JSON body is valid but is not an object.' },
  'request.invalid': { status: 400, when: 'A field of the request is missing, of the wrong type or out of range; details.problems names each path.' },
  'request.missing_model': { status: 400, when: '`model` is missing on /v1/audio/transcriptions or /v1/audio/speech.' },
  'request.too_large': { status: 413, when: 'The body is larger than [api].max_body_mb.' },
  'request.too_deep': { status: 400, when: 'The JSON body nests objects and arrays deeper than 128 levels; details carry max_depth and the path where it crossed.' },
  'request.unsupported_media_type': { status: 415, when: 'The Content-Type is not one this route accepts.' },
  'request.unknown_route': { status: 404, when: 'No route has this path.' },
  'request.method_not_allowed': { status: 405, when: 'The path exists but not with this method.' },
  'request.malformed': { status: 400, when: 'The request is not well-formed HTTP/1.1 (a bad chunk, both Content-Length and Transfer-Encoding, a NUL or space in the request line, a header without a name, no Host); details.reason says what. The connection is closed after the answer.' },
  'request.headers_too_large': { status: 431, when: 'The request line and headers together are over 16 KiB (a URL that long counts); the connection is closed after the answer.' },
  'request.timeout': { status: 408, when: 'The request did not arrive in full within Node\'s time limits; the connection is closed after the answer.' },
  'request.invalid_path': { status: 400, when: 'The path is not valid percent-encoding (a % not followed by two hex digits, such as %ZZ).' },
  'request.path_too_long': { status: 414, when: 'A segment of the path where a name goes (a slot, a model id, …) is over 1024 characters, longer than any name.' },
  'request.unknown_host': { status: 421, when: 'The Host header is not one of the gateway\'s names (loopback or local IP, localhost, *.localhost, the auth-mode hostname, [api].public_hostnames), or is empty: a web page may be reaching svc by DNS rebinding. Every method, reads included.' },
  'request.cross_site': { status: 403, when: 'A mutation (or a CORS preflight) from a web page on another origin (Origin, or Sec-Fetch-Site: cross-site) that is not in [api].allowed_origins.' },
  'request.form_post': { status: 403, when: 'A POST a web form or a no-cors fetch could send (a simple content type or none, no Authorization or X-* header) that a browser marks as sent by a page elsewhere: Sec-Fetch-Site same-site, a Referer from another origin, Sec-Fetch-Mode no-cors or navigate, or Upgrade-Insecure-Requests; details.marker names the header. The same POST from a tool (no such header) is served.' },
  'request.context_exceeded': { status: 400, when: "The prompt (or an embedding or rerank input) is longer than the engine's context; the message names `svc slot edit <slot> --ctx-size N`; details carry slot, n_prompt_tokens, n_ctx and suggested_ctx_size." },
  'request.not_supported': { status: 501, when: 'The engine does not serve this route in the mode it runs in (e.g. chat on an embedding engine).' },

  'model.not_found': { status: 404, when: 'No slot, alias, virtual name or upstream serves this model id; details lists near matches. On /api/models: no registry entry has this id (or name).' },
  'model.invalid_id': { status: 400, when: 'A model id does not follow the id grammar (letters, digits, ".", "_", ":", "-"; starts with a letter or digit; at most 128).' },
  'model.already_exists': { status: 409, when: 'A registry entry with this id already exists for another file.' },
  'model.in_use': { status: 409, when: 'The model is the [model].default of one or more slots; details.slots names them. Pass force to remove it anyway.' },
  'model.path_relative': { status: 400, when: 'A model path is not absolute; details.path is the path given.' },
  'model.path_missing': { status: 400, when: 'A model path (or a part of a split model) does not exist; details.path names it.' },
  'model.unsupported_format': { status: 400, when: 'The file is not a model svc registers: not a regular file, an extension outside [models].file_extensions, an mmproj sidecar, a later part of a split model, or a .gguf file without the GGUF magic (details.found; force registers it anyway).' },
  'model.pull_invalid_ref': { status: 400, when: 'The pull ref is not org/repo[:quant], org/repo/path.gguf, hf://…, an https:// URL, a registry id or a catalogue name; or a registry entry to pull again has no hf_repo.' },
  'model.pull_not_found': { status: 404, when: 'The repo, revision or file does not exist on the Hugging Face endpoint (or a direct URL answered 404).' },
  'model.pull_gated': { status: 403, when: 'The endpoint answered 401/403: the repo is gated or private. Accept its terms on the website and set HF_TOKEN.' },
  'model.pull_host_not_allowed': { status: 403, when: 'A direct URL (or a redirect from a host other than the endpoint) names a host that is neither the Hugging Face endpoint nor in [models].pull_allowed_hosts.' },
  'model.pull_unsafe_path': { status: 502, when: 'The endpoint listed a file path that would leave the destination folder (.., absolute); nothing was fetched.' },
  'model.pull_failed': { status: 502, when: 'The download failed after its retries (connection refused or dropped, stalls, an unexpected answer); the parts already on disk are kept and a new pull resumes from them. An endpoint it cannot reach is named, with SVC_HF_ENDPOINT/HF_ENDPOINT and svc model register --path as the ways round it.' },
  'model.search_failed': { status: 502, when: 'GET /api/models/search could not ask the Hugging Face endpoint (unreachable, or an unexpected answer); the message names the endpoint and how to set another.' },
  'model.pull_running': { status: 409, when: 'DELETE /api/models/pulls/<job>: the job is still queued or running; cancel it first (DELETE /api/models/<id>/pull).' },
  'model.checksum_mismatch': { status: 502, when: 'A downloaded file does not match its SHA-256 (or git blob id); its bytes were deleted and nothing was put in place.' },
  'model.does_not_fit': { status: 409, when: 'The model (weights plus KV cache at the target context) needs more memory than the host has free (RAM plus VRAM); details carry the figures. --force pulls it anyway.' },
  'model.disk_full': { status: 507, when: 'The store does not have the free space the rest of the download needs; details carry needed_bytes and free_bytes.' },
  'model.pull_queue_full': { status: 503, when: 'A new pull while [models].pull_queue_max pulls are queued or running; details carry waiting and max. It can be asked again once one ends.' },
  'model.pull_no_job': { status: 404, when: 'No pull job exists for this model id (status, stream or cancel), or with this job id (dismiss).' },
  'model.backup_invalid': { status: 400, when: 'svc registry import: the archive is missing, not a tar (gzip or plain), holds a link, a device, an absolute path or .., has no registry.toml, or its registry.toml does not validate (exit 2).' },
  'model.backup_exists': { status: 409, when: 'svc registry import: the destination registry.toml exists; pass --force to replace it (exit 1).' },

  'slot.not_found': { status: 404, when: 'No slot has this name.' },
  'slot.not_ready': { status: 503, when: 'The target slot is still warming; details carry slot and state.' },
  'slot.disabled': { status: 409, when: 'The slot is disabled in its slot file.' },
  'slot.illegal_transition': { status: 409, when: 'The slot cannot move from its current state to the one asked for (a bug if seen).' },
  'slot.config_error': { status: 400, when: 'The slot configuration is incoherent (device, profile, type).' },
  'slot.no_free_port': { status: 409, when: 'Every port of the auto-allocation pool is taken.' },
  'slot.port_in_use': { status: 409, when: "Another process already listens on the slot's port; the message names svc slot edit <name> --port." },
  'slot.spawn_failed': { status: 503, when: 'The engine process could not be run (the binary cannot be executed) or could not be stopped; a configuration or host problem, so the start is not retried automatically.' },
  'slot.load_failed': { status: 502, when: 'The engine exited or failed its health check while loading; details carry the stderr tail.' },
  'slot.capacity': { status: 503, when: 'max_slots is reached and no running slot is idle enough to evict.' },
  'slot.memory_pressure': { status: 503, when: 'An enabled slot was not started with the gateway because host available memory was under [slots].evict_pressure_mb; seen in its last_error. It starts on its first request.' },
  'slot.binary_missing': { status: 503, when: 'The engine binary (e.g. llama-server) is not configured, not in SVC_LLAMA_SERVER and not on PATH; the message says how to get one.' },
  'slot.model_missing': { status: 409, when: 'The slot has no model, or its model id is not in the registry, or the model file is gone.' },
  'slot.unhealthy': { status: 503, when: 'A ready engine stopped answering its health probes while its process lived; it was killed and is restarted with the crash backoff. Seen in a slot\'s last_error.' },
  'slot.crash_loop': { status: 502, when: 'The engine crashed repeatedly and automatic restarts stopped; details carry the last exit and stderr tail.' },
  'slot.already_exists': { status: 409, when: 'Creating a slot whose name is already taken (a slot file with that name exists).' },
  'slot.npu_exclusivity_violation': { status: 409, when: 'Creating or changing a slot would leave more than one enabled NPU llm slot; details name the slot, the conflicting_slots and a hint.' },
  'slot.busy': { status: 409, when: 'Deleting a slot that is running (starting, warming, ready, stopping) or has requests in flight, without force.' },
  'slot.rpc_worker_unreachable': { status: 503, when: 'A llama-server slot with rpc_workers: a worker did not accept a TCP connection when the slot started; the message and details.worker name it. The slot is in error and retried with the crash backoff.' },

  'profiles.not_found': { status: 404, when: 'No seed profile and no profiles.toml entry has this name.' },
  'profiles.seed_immutable': { status: 409, when: 'A write to one of the 12 seed profiles; the message points at clone.' },
  'profiles.in_use': { status: 409, when: 'Deleting a profile that slots name in [slot].profile; details.slots lists them. Pass force to delete it anyway.' },
  'profiles.exists': { status: 409, when: 'Creating (or cloning to) a profile name that exists already (a seed or in profiles.toml).' },
  'stacks.not_found': { status: 404, when: 'No built-in stack and no stacks.toml entry has this slug.' },
  'stacks.exists': { status: 409, when: 'Creating (or importing, or snapshotting to) a slug a stack already has.' },
  'stacks.seed_immutable': { status: 409, when: 'A write to one of the built-in stacks (saber, forge, pi).' },
  'stacks.bad_envelope': { status: 400, when: 'An imported .svcstack.json is not a stack envelope, its checksum does not match its body, or its stack does not validate; details say which.' },
  'stacks.envelope_too_new': { status: 400, when: 'An imported envelope has a schema_version newer than this svc reads.' },
  'stacks.apply_in_progress': { status: 409, when: 'Another stack apply is running; applies run one at a time.' },
  'stacks.invalid_name': { status: 409, when: 'The slug is one the stack routes use (active, import, snapshot); pick another.' },
  'update.check_failed': { status: 502, when: 'The npm registry could not be reached, does not have the package, or answered an error; details name the registry.' },
  'update.in_progress': { status: 409, when: 'An update or rollback job is running; details.job names it. One at a time.' },
  'update.job_not_found': { status: 404, when: 'No update job has this id.' },
  'update.version_not_found': { status: 404, when: 'The registry has no such version of the package (apply with a version, --target).' },
  'update.up_to_date': { status: 409, when: 'Apply without a version, and the channel offers nothing newer than the running version.' },
  'update.downgrade_refused': { status: 409, when: 'Apply names a version older than the running one without allow_downgrade: true (svc update --allow-downgrade); an older build may lack a security fix. Rollback needs no flag.' },
  'update.no_previous': { status: 409, when: 'A rollback, but svc.previous records no tree, or the tree it records is gone.' },
  'update.integrity_failed': { status: 502, when: 'The registry gave no sha512 integrity for the version, the tarball did not match it, or its URL is not on the registry.' },
  'update.install_failed': { status: 500, when: 'Unpacking the version or installing its dependencies (npm) failed; details.log is the job log.' },
  'update.config_invalid': { status: 409, when: 'The version to switch to cannot migrate or read this config (its svc config migrate or validate failed); nothing was switched.' },
  'update.health_failed': { status: 500, when: 'A job error: the new version did not answer healthy within the bound after the restart; svc switched back by itself (state rolled_back).' },
  'update.rollback_failed': { status: 500, when: 'A job error: switching back after a failed health check did not bring the previous version up either; details say what to run.' },
  'update.unsupported': { status: 409, when: 'The gateway runs as svc.service under an unprivileged user, which cannot restart its own unit; the message says how to update by hand.' },
  'update.interrupted': { status: 500, when: 'A job error: the process running the job stopped before it ended (a gateway stopped mid-install, a worker killed).' },

  'dispatch.no_route': { status: 404, when: 'The request resolved to no slot or upstream that serves this route.' },
  'dispatch.wrong_slot_type': { status: 400, when: 'The model resolved to a slot whose type does not serve this route.' },
  'dispatch.upstream_unreachable': { status: 502, when: 'The slot engine or remote upstream refused or dropped the connection.' },
  'dispatch.upstream_timeout': { status: 504, when: 'The slot engine or remote upstream did not answer in time.' },
  'dispatch.upstream_bad_response': { status: 502, when: 'The slot engine or remote upstream answered something that is not HTTP, or a success whose Content-Type does not fit the route (e.g. HTML for a chat request).' },
  'response.not_found': { status: 404, when: 'No stored response has this id (previous_response_id, GET or DELETE /v1/responses/{id}): it was stored with store: false or [dispatcher].responses_ttl_s = 0, it expired, or it was deleted.' },
  'dispatch.client_too_slow': { status: 503, when: 'A client sharing a cold stream fell more than the replay bound behind the fastest one; its stream ends with this error event.' },
  'dispatch.no_replica': { status: 503, when: 'Every replica of the model (local slot, peers, vLLM or llama-server upstreams) has its circuit breaker open or failed before answering; details.replicas names each. Also: no member of an explicit replica group can take the request.' },

  // An engine's or remote upstream's own error answer that is not already this envelope,
  // rewritten into it (src/dispatch/error-answer.ts). The status is always the one the
  // upstream sent: for the two class codes (client_error, error) it is any status of the
  // class, and the status listed here is the class's first.
  'upstream.bad_request': { status: 400, when: 'The engine or remote upstream answered 400; details.upstream is its body.' },
  'upstream.unauthorized': { status: 401, when: 'The engine or remote upstream answered 401 (e.g. a wrong API key in the environment variable it is read from).' },
  'upstream.forbidden': { status: 403, when: 'The engine or remote upstream answered 403.' },
  'upstream.not_found': { status: 404, when: 'The engine or remote upstream answered 404 (e.g. a route it does not have).' },
  'upstream.too_large': { status: 413, when: 'The engine or remote upstream answered 413.' },
  'upstream.unprocessable': { status: 422, when: 'The engine or remote upstream answered 422.' },
  'upstream.rate_limited': { status: 429, when: 'The engine or remote upstream answered 429; its Retry-After is relayed.' },
  'upstream.client_error': { status: 400, when: 'The engine or remote upstream answered another 4xx; sent with that status (details.status).' },
  'upstream.unavailable': { status: 503, when: 'The engine or remote upstream answered 503; its Retry-After is relayed.' },
  'upstream.error': { status: 500, when: 'The engine or remote upstream answered another 5xx; sent with that status (details.status).' },

  'image.prompt_required': { status: 422, when: '`prompt` is missing or empty on /v1/images/generations.' },
  'image.model_not_curated': { status: 404, when: 'The image model is not one of the curated image models; details.curated lists them.' },
  'image.workflow_invalid': { status: 422, when: 'The image engine (ComfyUI) rejected the workflow built for the request; details carry its node errors.' },
  'image.generation_failed': { status: 502, when: 'The image engine accepted the workflow but its execution failed or produced no image; details carry its messages.' },
  'image.cache_miss': { status: 404, when: 'No cached image has this name under /api/images/cache/.' },

  'gpu.image_mode': { status: 503, when: 'The GPU is in image mode with image requests in flight, so an LLM GPU slot cannot start now; retry after details.retry_after_s.' },
  'gpu.inference_mode': { status: 503, when: 'The GPU is busy with inference requests in flight on LLM GPU slots, so image mode cannot start now; retry after details.retry_after_s. Also an image slot\'s last_error when it was not started with the gateway because enabled inference slots share its GPU.' },

  'events.invalid_query': { status: 400, when: 'A query parameter (or the Last-Event-ID header) of /api/events or /api/events/stream is malformed; details.problems names each parameter.' },

  'config.invalid': { status: 400, when: 'A configuration file or a settings change fails validation; details.problems names each file and field path.' },
  'config.not_writable': { status: 500, when: 'The configuration or state directory cannot be written by this process.' },
  'config.write_failed': { status: 500, when: 'Writing a configuration file failed; the previous file is unchanged.' },
  'config.migration_failed': { status: 500, when: 'A schema migration could not be applied; the file is unchanged.' },
  'config.host_only': { status: 403, when: 'The change sets a key that names a program, a host path or how a program loads; only a loopback client or an admin token may set it over HTTP. details.keys names each key. Also an update apply or rollback from anyone else (details.keys names the route).' },

  'auth.required': { status: 401, when: 'Auth mode, a protected route, and no Authorization header (and no trusted forwarded identity). The answer carries WWW-Authenticate: Bearer.' },
  'auth.invalid': { status: 401, when: 'The bearer token is malformed, unknown, does not match, or was revoked. The answer carries WWW-Authenticate: Bearer.' },
  'auth.forbidden': { status: 403, when: "The caller is authenticated but its scope does not grant this route; details carry the route's access class and the scope." },
  'auth.rate_limited': { status: 429, when: 'Too many failed token verifications from this client address; retry after details.retry_after_s (also the Retry-After header).' },
  'auth.duplicate_label': { status: 409, when: 'A token with this label exists; labels are unique.' },
  'auth.invalid_scope': { status: 400, when: 'The scope is not one of admin, all, v1-only, read-only.' },
  'auth.unknown_token': { status: 404, when: 'No token has this id (revoking one that does not exist, or was already revoked).' },

  'mcp.not_found': { status: 404, when: 'No tool server has this id.' },
  'mcp.invalid_id': { status: 400, when: 'A tool server id is not 1-64 of a-z, 0-9, "-", "_" starting with a letter or digit (so it can never name a path outside the servers folder).' },
  'mcp.invalid_spec': { status: 400, when: 'The install spec is none of npm:<package>[@version], a command line, an http(s) URL (streamable-http or sse), oci://<image> or uvx:<package>; details.problems names the field.' },
  'mcp.runtime_missing': { status: 400, when: 'An oci:// or uvx: spec needs a program this host lacks (docker or podman; uvx); details.install says what to install.' },
  'mcp.already_installed': { status: 409, when: 'A tool server with this id is already installed.' },
  'mcp.id_reserved': { status: 409, when: 'The id is that of a bundled server (svc-admin, svc-memory).' },
  'mcp.bundled': { status: 409, when: 'Bundled servers (served by the gateway itself) cannot be uninstalled, stopped or reconfigured.' },
  'mcp.install_failed': { status: 502, when: 'npm could not install the package; details.stderr has the end of its output. Nothing is left behind.' },
  'mcp.unavailable': { status: 503, when: 'The tool server is not running or could not be reached (stopped, disabled, crash-looping, a remote URL that does not answer); details.state and details.last_error say why.' },
  'mcp.tool_not_found': { status: 404, when: 'The server offers no tool of this name.' },
  'mcp.tool_blocked': { status: 403, when: "The tool is in its server's blocked list, or the caller's token scope does not allow it (read tools need read, the rest write)." },
  'mcp.tool_timeout': { status: 504, when: 'A tool call did not answer within [mcp].tool_timeout_s.' },
  'mcp.tool_failed': { status: 502, when: 'The tool server answered the call with an error, or the call was denied or timed out in the approvals queue; details.reason says which.' },

  'approvals.not_found': { status: 404, when: 'No approval request has this id (or it was resolved and dropped from the queue).' },
  'approvals.already_resolved': { status: 409, when: 'The approval request was already approved, denied or expired; details.state says which.' },

  'omni.max_rounds': { status: 502, when: 'An omni: true chat still asked for tools after [mcp].max_rounds rounds; details.rounds and details.tool_calls say what ran.' },

  'memory.unavailable': { status: 503, when: 'Memory is off ([memory].enabled = false), or the memory store cannot serve the request now: its embedded database process is crash-looping or could not start; details.reason says why.' },
  'memory.engine_unreachable': { status: 503, when: 'The memory engine did not answer: the embedded database process or the [memory].pgvector_url server refused or dropped the connection.' },
  'memory.engine_unsupported': { status: 501, when: 'The [memory].engine does not serve this: the per-bank passthrough (/api/memory/banks/<id>/<path>) is the hindsight engine\'s, and only pgvector has svc\'s own SQL store.' },
  'memory.dimension_mismatch': { status: 409, when: 'The embedding model gives vectors of another dimension than the bank holds (the model changed since the bank was made), or an imported item has one; details.bank, details.bank_dimension and details.model_dimension say which. `svc memory reembed <bank>` re-embeds the bank with the current model.' },
  'memory.agent_id_invalid': { status: 400, when: 'The X-Svc-Agent header does not match ^[a-zA-Z0-9_-]{1,64}$.' },
  'memory.namespace_invalid': { status: 400, when: 'A namespace is neither "shared" nor "private:<agent>".' },
  'memory.invalid_bank': { status: 400, when: 'A bank id is not 1-128 of letters, digits, "_", "-", or a list cursor is not <bank>@<offset>.' },
  'memory.bank_not_found': { status: 404, when: 'No bank has this id.' },
  'memory.confirm_required': { status: 400, when: 'Deleting a bank needs ?confirm=<bank id> or a body {"confirm": "<bank id>"} naming the same bank.' },
  'memory.embedding_failed': { status: 502, when: 'The embedding model ([memory.embedding].embed_model) could not embed the text: no slot serves it, or it answered an error; details.model and details.status say which.' },
  'memory.llm_unavailable': { status: 503, when: "svc-memory's memory_reflect needs an llm slot (svc/primary) to answer from the recalled memories, and none answered; details.model and details.cause say which." },
  'config.memory_graph_invalid': { status: 400, when: 'PUT /api/memory/graph with a field that is unknown or out of range (enabled a boolean, extraction_slot a slot name, llm_timeout_s 30-3600); details.field and details.problems name the path.' },
  'config.memory_graph_slot_invalid': { status: 422, when: 'PUT /api/memory/graph names an extraction_slot that is not an enabled llm slot; details.available_slots lists those that are.' },
  'memory.graph_disabled': { status: 409, when: 'POST /api/memory/graph/retry while [memory.graph].enabled is false.' },
  'memory.graph_node_not_found': { status: 404, when: 'A subgraph with mode=ego names a node that is not in the bank\'s graph, or that the caller may not see.' },
  'memory.engine_error': { status: 400, when: 'The memory daemon (hindsight, mem0) refused the request with a 4xx: the answer carries its status (details.upstream_status) and message; details.engine names it.' },
  'memory.engine_upstream': { status: 502, when: 'The memory daemon (hindsight, mem0) answered a 5xx; details.upstream_status and details.engine say which.' },
  'memory.engine_shape': { status: 502, when: 'The memory daemon answered 2xx with a body svc cannot read (not JSON, or a field missing or of the wrong type); details.engine and details.path say where.' },
  'memory.invalid_path': { status: 400, when: 'A per-bank path of the Hindsight passthrough (/api/memory/banks/<id>/<path>) is not on its allowlist, or has "..", "%", or an empty segment.' },

  'agent.persona_invalid': { status: 400, when: 'A persona id is not ^[a-z0-9][a-z0-9_-]{0,63}$ (a dot or a slash in it would leave the personas folder); nothing is read or written.' },
  'agent.persona_not_found': { status: 404, when: 'The agent has no persona with this id (<hermes home>/personas/<id>.toml is missing).' },
  'agent.not_provisioned': { status: 404, when: 'The agent has no provision.json yet: run `svc agent bootstrap hermes` (or install it).' },
  'agent.provision_busy': { status: 409, when: 'A provisioning run of this agent is already going on; wait for it to end.' },
  'memory.item_not_found': { status: 404, when: 'No memory (or no document) with this id in the bank.' },
  'memory.import_invalid': { status: 400, when: 'A line of a bank import is not JSON or not an exported item; details.line and details.problems say which (lines before it were imported).' },
  'memory.reembed_running': { status: 409, when: 'The bank is being re-embedded already; details.job is that job (GET /api/memory/banks/<id>/reembed).' },
  'memory.bank_full': { status: 507, when: 'The bank holds [memory].max_items_per_bank memories (on svc\'s own store, or waiting in the degraded hindsight engine\'s outbox): the add or import is refused and nothing is deleted; details carry bank, items, adding and max_items_per_bank.' },
  'memory.too_many_banks': { status: 507, when: 'A write would make a bank while the store holds [memory].max_banks banks; details carry bank, banks and max_banks.' },

  'system.internal': { status: 500, when: 'An unexpected error; the server log has the stack.' },
  'system.unavailable': { status: 503, when: 'A subsystem the route needs (e.g. the activity database) is not available.' },
  'system.shutting_down': { status: 503, when: 'The server is shutting down and takes no new work.' },
  'system.too_many_streams': { status: 503, when: 'A new event stream (events, a followed log, pull progress) past the cap on open streams, for the gateway or for this client address; details carry scope and limit, and retry_after_s (also the Retry-After header).' },

  'agent.name_required': { status: 400, when: 'POST /api/agents/install without a name.' },
  'agent.invalid_name': { status: 400, when: 'An agent name does not match ^[a-z0-9][a-z0-9-]{0,31}$ (it names a folder and a file, so it can never hold a path).' },
  'agent.unknown': { status: 404, when: 'No bundled agent has this name (pi, hermes).' },
  'agent.already_installed': { status: 409, when: 'The agent is installed already, or a job of it is running; upgrade it, or uninstall it first.' },
  'agent.switch_required': { status: 409, when: 'Another daemon agent is installed and only one may be: pass switch (svc agent install --switch) to replace it; details.installed names it.' },
  'agent.not_installed': { status: 409, when: 'The agent is not installed (upgrade, run, log of an agent that is not there).' },
  'agent.install_failed': { status: 502, when: 'Installing or upgrading failed (npm or the runtime answered an error); details.step and details.stderr say where. What the failed install wrote was removed.' },
  'agent.upgrade_unsupported': { status: 400, when: 'This agent has no upgrade (or no such version to go to).' },
  'agent.uninstall_incomplete': { status: 207, when: 'An uninstall removed some of what the agent installed but not all; details.residual lists each path left and why.' },
  'agent.file_invalid': { status: 400, when: 'agents/<name>.toml does not validate; details.problems name each field path.' },
  'agent.job_not_found': { status: 404, when: 'No agent job has this id (jobs live as long as the gateway).' },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;
export type ErrorDetails = Record<string, unknown>;

export interface ErrorEnvelope {
  error: { code: string; message: string; details: ErrorDetails };
}

/** The base of every error svc raises on purpose. Anything else is reported as system.internal. */
export class SvcError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SvcError';
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  /** The envelope, within the bounds every answer keeps (protocol/input-bounds.ts). */
  toEnvelope(): ErrorEnvelope {
    return boundedEnvelope({ error: { code: this.code, message: this.message, details: this.details } });
  }
}

type CodeIn<NS extends string> = Extract<ErrorCode, `${NS}.${string}`>;

/** Namespaced subclasses: the compiler keeps each kind of error to the codes of its namespace. */
export class RequestError extends SvcError {
  constructor(code: CodeIn<'request'>, message: string, details?: ErrorDetails) {
    super(code, message, details);
    this.name = 'RequestError';
  }
}

export class ConfigError extends SvcError {
  constructor(code: CodeIn<'config'>, message: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(code, message, details, options);
    this.name = 'ConfigError';
  }
}

export class SlotError extends SvcError {
  constructor(code: CodeIn<'slot'>, message: string, details?: ErrorDetails) {
    super(code, message, details);
    this.name = 'SlotError';
  }
}

export class DispatchError extends SvcError {
  constructor(code: CodeIn<'dispatch'> | 'model.not_found', message: string, details?: ErrorDetails) {
    super(code, message, details);
    this.name = 'DispatchError';
  }
}

export class ImageError extends SvcError {
  constructor(code: CodeIn<'image'> | CodeIn<'gpu'>, message: string, details?: ErrorDetails) {
    super(code, message, details);
    this.name = 'ImageError';
  }
}

export class ModelError extends SvcError {
  constructor(code: CodeIn<'model'>, message: string, details?: ErrorDetails) {
    super(code, message, details);
    this.name = 'ModelError';
  }
}

export class EventsError extends SvcError {
  constructor(code: CodeIn<'events'>, message: string, details?: ErrorDetails) {
    super(code, message, details);
    this.name = 'EventsError';
  }
}

export class AuthError extends SvcError {
  constructor(code: CodeIn<'auth'>, message: string, details?: ErrorDetails) {
    super(code, message, details);
    this.name = 'AuthError';
  }
}

export class MemoryError extends SvcError {
  constructor(code: CodeIn<'memory'>, message: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(code, message, details, options);
    this.name = 'MemoryError';
  }
}

export class AgentError extends SvcError {
  constructor(code: CodeIn<'agent'>, message: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(code, message, details, options);
    this.name = 'AgentError';
  }
}

export class SystemError extends SvcError {
  constructor(code: CodeIn<'system'>, message: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(code, message, details, options);
    this.name = 'SystemError';
  }
}

/**
 * An envelope whose code is in this catalogue, with a string message and an object of
 * details: what svc's own engines and another svc send. An OpenAI-style error with a
 * string code of its own (`"invalid_api_key"`) is not one.
 */
export function isCatalogueEnvelope(value: unknown): value is ErrorEnvelope {
  if (!isErrorEnvelope(value)) return false;
  const { code, message, details } = value.error as { code: string; message?: unknown; details?: unknown };
  return Object.hasOwn(ERROR_CODES, code) && typeof message === 'string' && typeof details === 'object' && details !== null && !Array.isArray(details);
}

export function isErrorEnvelope(value: unknown): value is ErrorEnvelope {
  if (typeof value !== 'object' || value === null) return false;
  const error = (value as { error?: unknown }).error;
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string';
}
