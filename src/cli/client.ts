// The typed HTTP client every API-backed command uses. It knows routes and payloads, not
// presentation: commands decide how to print.
import type { MemoryAddAnswer, MemoryBankView, MemoryEngineView, MemoryImportAnswer, MemoryItemsAnswer, MemoryReembedJob, MemoryUnifyAnswer, MemoryHindsightMigrateAnswer } from '../protocol/memory.js';
import type { CreateSlotPayload } from '../protocol/slots.js';
import type { StatusPayload } from '../protocol/system.js';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AuthStatusPayload, CreatedTokenPayload, TokenInfo } from '../protocol/auth.js';
import { isErrorEnvelope, type ErrorEnvelope } from '../protocol/errors.js';
import type { HardwareProbe } from '../protocol/hardware.js';
import type { AssignModelPayload, ModelListPayload, ModelPayload, RegisterModelPayload, RemoveModelPayload, ScanModelsPayload } from '../protocol/models.js';
import type {
  AssignSlotModelPayload, CreateSlotRequest, DeleteSlotPayload, EditSlotRequest, SlotChangePayload, SlotDetailPayload, SlotListPayload, SlotLogsPayload, SlotViewPayload,
} from '../protocol/slots.js';
import type { InstallApplyPayload, InstallApplyRequest } from '../protocol/install.js';
import type { UpdateCheckPayload, UpdateJob, UpdateStatePayload } from '../protocol/updates.js';
import type { StackActivePayload, StackApplyPayload, StackImportPayload, StackPayload } from '../protocol/stacks.js';
import type { CreateProfileRequest, ProfileChangePayload, ProfilePayload, UpdateProfileRequest } from '../protocol/profiles.js';
import type { PullJobPayload, PullListPayload, PullPlanPayload, PullRequest, SearchResultPayload } from '../protocol/pulls.js';
import type {
  ApprovalEntry, ApprovalListPayload, McpCatalogPayload, McpInstallRequest, McpLogsPayload, McpServerListPayload, McpServerView, McpTestPayload,
} from '../protocol/mcp.js';
import { VERSION } from '../lib/version.js';

/** The API could not be reached at all (refused, DNS, timeout). */
export class ApiUnreachableError extends Error {
  constructor(readonly baseUrl: string, readonly reason: string) {
    super(`cannot reach the svc API at ${baseUrl} (${reason})`);
  }
}

/** The API answered with an error envelope (or something that was not one). */
export class ApiResponseError extends Error {
  constructor(readonly status: number, readonly envelope: ErrorEnvelope) {
    super(envelope.error.message);
  }

  get code(): string {
    return this.envelope.error.code;
  }
}


export type { StatusPayload };

export interface ReloadPayload {
  reloaded: boolean;
  warnings: string[];
  slots: string[];
}

export interface HardwarePayload {
  /** The cached hardware.json, or null when none has been written (or it is unreadable). */
  probe: HardwareProbe | null;
  host: { hostname: string; platform: string; arch: string; cpu_count: number; cpu_model: string; mem_total_mb: number; mem_available_mb: number };
}

const REQUEST_TIMEOUT_MS = 30_000;

/** The headers that authenticate every request (cli/credentials.ts); asked before each one. */
export type Credentials = () => Promise<Readonly<Record<string, string>>>;

export class ApiClient {
  constructor(readonly baseUrl: string, private readonly credentials: Credentials = async () => ({})) {}

  authStatus = () => this.request<AuthStatusPayload>('GET', '/api/auth/status');
  listTokens = () => this.request<{ tokens: TokenInfo[] }>('GET', '/api/auth/tokens');
  createToken = (label: string, scope: string) => this.request<CreatedTokenPayload>('POST', '/api/auth/tokens', { label, scope });
  revokeToken = (id: string) => this.request<{ revoked: TokenInfo }>('DELETE', `/api/auth/tokens/${encodeURIComponent(id)}`);

  status = () => this.request<StatusPayload>('GET', '/api/status');
  reloadSettings = () => this.request<ReloadPayload>('POST', '/api/settings/reload');
  hardware = () => this.request<HardwarePayload>('GET', '/api/hardware');
  probeHardware = () => this.request<HardwareProbe>('POST', '/api/hardware/probe');

  listModels = () => this.request<ModelListPayload>('GET', '/api/models');
  getModel = (ref: string) => this.request<ModelPayload>('GET', `/api/models/${encodeURIComponent(ref)}`);
  registerModel = (body: { id: string; path: string; name?: string; license?: string; force?: boolean }) => this.request<RegisterModelPayload>('POST', '/api/models', body);
  removeModel = (ref: string, force = false) => this.request<RemoveModelPayload>('DELETE', `/api/models/${encodeURIComponent(ref)}${force ? '?force=true' : ''}`);
  assignModel = (ref: string, slot: string) => this.request<AssignModelPayload>('POST', `/api/models/${encodeURIComponent(ref)}/assign`, { slot });
  scanModels = () => this.request<ScanModelsPayload>('POST', '/api/models/scan');
  listStacks = () => this.request<{ stacks: StackPayload[] }>('GET', '/api/stacks');
  getStack = (slug: string) => this.request<StackPayload>('GET', `/api/stacks/${encodeURIComponent(slug)}`);
  exportStack = (slug: string) => this.request<Record<string, unknown>>('GET', `/api/stacks/${encodeURIComponent(slug)}/export`);
  importStack = (envelope: unknown, slug?: string) => this.request<StackImportPayload>('POST', '/api/stacks/import', { envelope, ...(slug && { slug }) });
  snapshotStack = (slug: string, name?: string) => this.request<StackPayload>('POST', '/api/stacks/snapshot', { slug, ...(name && { name }) });
  // An apply waits for the engines it starts: no client timeout.
  applyStack = (slug: string, dryRun: boolean, pull = false) => {
    const query = [dryRun && 'dry_run=true', pull && 'pull=true'].filter(Boolean).join('&');
    return this.request<StackApplyPayload>('POST', `/api/stacks/${encodeURIComponent(slug)}/apply${query ? `?${query}` : ''}`, {}, { timeoutMs: null });
  };
  activeStack = () => this.request<StackActivePayload>('GET', '/api/stacks/active');
  deleteStack = (slug: string) => this.request<{ deleted: string }>('DELETE', `/api/stacks/${encodeURIComponent(slug)}`);
  listProfiles = () => this.request<{ profiles: ProfilePayload[] }>('GET', '/api/profiles');
  getProfile = (name: string) => this.request<ProfilePayload>('GET', `/api/profiles/${encodeURIComponent(name)}`);
  createProfile = (body: CreateProfileRequest) => this.request<ProfilePayload>('POST', '/api/profiles', body);
  editProfile = (name: string, body: UpdateProfileRequest, restart = false) => this.request<ProfileChangePayload>('PUT', `/api/profiles/${encodeURIComponent(name)}${restart ? '?restart=true' : ''}`, body, { timeoutMs: null });
  cloneProfile = (name: string, to: string) => this.request<ProfilePayload>('POST', `/api/profiles/${encodeURIComponent(name)}/clone`, { name: to });
  deleteProfile = (name: string, force = false) => this.request<{ deleted: string; slots: string[] }>('DELETE', `/api/profiles/${encodeURIComponent(name)}${force ? '?force=true' : ''}`);
  pullModel = (id: string, body: PullRequest) => this.request<PullJobPayload & { existing: boolean }>('POST', `/api/models/${encodeURIComponent(id)}/pull`, body, { timeoutMs: null });
  planPull = (id: string, body: PullRequest) => this.request<{ plan: PullPlanPayload; refusal: { code: string; message: string } | null }>('POST', `/api/models/${encodeURIComponent(id)}/pull`, { ...body, dry_run: true }, { timeoutMs: null });
  pullStatus = (id: string) => this.request<PullJobPayload>('GET', `/api/models/${encodeURIComponent(id)}/pull/status`);
  cancelPull = (id: string, discard = false) => this.request<PullJobPayload>('DELETE', `/api/models/${encodeURIComponent(id)}/pull${discard ? '?discard=true' : ''}`, undefined, { timeoutMs: null });
  listPulls = () => this.request<PullListPayload>('GET', '/api/models/pulls');
  searchModels = (q: string, limit: number) => this.request<{ query: string; results: SearchResultPayload[] }>('GET', `/api/models/search?q=${encodeURIComponent(q)}&limit=${limit}`, undefined, { timeoutMs: null });
  /** The open SSE response of GET /api/models/<id>/pull/stream. */
  followPull = (id: string, signal: AbortSignal) => this.open('GET', `/api/models/${encodeURIComponent(id)}/pull/stream`, signal);

  listSlots = () => this.request<SlotListPayload>('GET', '/api/slots');
  getSlot = (name: string) => this.request<SlotDetailPayload>('GET', slotPath(name));
  // Loading waits for the engine to become healthy ([slot].load_timeout_s, 600 s by default): no client timeout.
  loadSlot = (name: string, model?: string) => this.request<SlotViewPayload>('POST', slotPath(name, '/load'), model === undefined ? {} : { model }, { timeoutMs: null });
  unloadSlot = (name: string) => this.request<SlotViewPayload>('POST', slotPath(name, '/unload'), {}, { timeoutMs: null });
  restartSlot = (name: string) => this.request<SlotViewPayload>('POST', slotPath(name, '/restart'), {}, { timeoutMs: null });
  swapSlot = (name: string, model: string, persist = true) => this.request<SlotViewPayload>('POST', slotPath(name, '/swap'), { model, persist }, { timeoutMs: null });
  updateCheck = () => this.request<UpdateCheckPayload>('GET', '/api/updates/check', undefined, { timeoutMs: null });
  setUpdateChannel = (channel: string) => this.request<{ channel: string }>('PUT', '/api/updates/channel', { channel });
  updateState = () => this.request<UpdateStatePayload>('GET', '/api/updates/state');
  applyUpdate = (version?: string, allowDowngrade = false) => this.request<UpdateJob>('POST', '/api/updates/apply', { ...(version && { version }), ...(allowDowngrade && { allow_downgrade: true }) }, { timeoutMs: null });
  rollbackUpdate = () => this.request<UpdateJob>('POST', '/api/updates/rollback', {});
  updateJob = (id: string) => this.request<UpdateJob>('GET', `/api/updates/status/${encodeURIComponent(id)}`);
  /** Short timeout: setup asks it to find out whether a gateway runs at all. */
  installState = () => this.request<{ completed: boolean }>('GET', '/api/install/state', undefined, { timeoutMs: 1_000 });
  installApply = (body: InstallApplyRequest) => this.request<InstallApplyPayload>('POST', '/api/install/apply', body, { timeoutMs: null });
  assignSlotModel = (name: string, model: string) => this.request<AssignSlotModelPayload>('PUT', `/api/install/slots/${encodeURIComponent(name)}/model`, { model });
  createSlot = (body: CreateSlotRequest) => this.request<CreateSlotPayload>('POST', '/api/slots', body);
  editSlot = (name: string, body: EditSlotRequest) => this.request<SlotChangePayload>('PUT', slotPath(name), body);
  deleteSlot = (name: string, force = false) => this.request<DeleteSlotPayload>('DELETE', `${slotPath(name)}${force ? '?force=true' : ''}`, undefined, { timeoutMs: null });
  slotLogs = (name: string, lines: number) => this.request<SlotLogsPayload>('GET', `${slotPath(name, '/logs')}?lines=${lines}`);
  /** The open response of GET /api/slots/<name>/logs?follow=true (text/event-stream). */
  followSlotLogs = (name: string, lines: number, signal: AbortSignal) => this.open('GET', `${slotPath(name, '/logs')}?lines=${lines}&follow=true`, signal);
  /** The open response of POST /v1/chat/completions with stream:true (text/event-stream), for `svc run`. */
  chatStream = (body: { model: string; messages: Array<{ role: string; content: string }> }, signal: AbortSignal) =>
    this.open('POST', '/v1/chat/completions', signal, { ...body, stream: true });

  listMcpServers = () => this.request<McpServerListPayload>('GET', '/api/mcp/servers');
  getMcpServer = (id: string) => this.request<McpServerView>('GET', `/api/mcp/servers/${encodeURIComponent(id)}`);
  // An npm install and a first start take as long as npm and the server take: no client timeout.
  installMcpServer = (body: McpInstallRequest) => this.request<McpServerView>('POST', '/api/mcp/install', body, { timeoutMs: null });
  uninstallMcpServer = (id: string) => this.request<Record<string, unknown>>('DELETE', mcpPath(id), undefined, { timeoutMs: null });
  restartMcpServer = (id: string) => this.request<McpServerView>('POST', mcpPath(id, '/restart'), {}, { timeoutMs: null });
  mcpLogs = (id: string, lines: number) => this.request<McpLogsPayload>('GET', `${mcpPath(id, '/logs')}?lines=${lines}`);
  mcpCatalog = () => this.request<McpCatalogPayload>('GET', '/api/mcp/catalog');
  refreshMcpCatalog = () => this.request<McpCatalogPayload>('POST', '/api/mcp/catalog/refresh', {}, { timeoutMs: null });
  testMcpServer = (id: string) => this.request<McpTestPayload>('POST', mcpPath(id, '/test'), {}, { timeoutMs: null });
  listApprovals = () => this.request<ApprovalListPayload>('GET', '/api/agent/approvals');
  approve = (id: string) => this.request<{ approval: ApprovalEntry }>('POST', `/api/agent/approvals/${encodeURIComponent(id)}/approve`, {});
  deny = (id: string) => this.request<{ approval: ApprovalEntry }>('POST', `/api/agent/approvals/${encodeURIComponent(id)}/deny`, {});

  // Memory (docs/memory.md): `who` are the X-Svc-Agent / X-Svc-Private headers. An add or a
  // search may wait for the embedding slot to load: no client timeout.
  /** The engine's report: it neither starts the embedded database nor keeps it awake. */
  memoryEngine = () => this.request<MemoryEngineView>('GET', '/api/memory/engine');
  listMemoryBanks = () => this.request<{ banks: MemoryBankView[]; count: number }>('GET', '/api/memory/banks', undefined, { timeoutMs: null });
  addMemory = (body: Record<string, unknown>, who: Record<string, string>) => this.request<MemoryAddAnswer>('POST', '/api/memory/add', body, { timeoutMs: null, headers: who });
  searchMemory = (body: Record<string, unknown>, who: Record<string, string>) => this.request<MemoryItemsAnswer>('POST', '/api/memory/search', body, { timeoutMs: null, headers: who });
  recallMemory = (body: Record<string, unknown>, who: Record<string, string>) => this.request<MemoryItemsAnswer & { rerank: string }>('POST', '/api/memory/recall', body, { timeoutMs: null, headers: who });
  // Bank administration (svc memory banks show|create|delete|export|import, svc memory reembed).
  memoryBank = (id: string) => this.request<MemoryBankView>('GET', `/api/memory/banks/${encodeURIComponent(id)}`, undefined, { timeoutMs: null });
  putMemoryBank = (id: string, body: Record<string, unknown>) => this.request<MemoryBankView>('PUT', `/api/memory/banks/${encodeURIComponent(id)}`, body, { timeoutMs: null });
  deleteMemoryBank = (id: string) => this.request<{ deleted: string; items: number }>('DELETE', `/api/memory/banks/${encodeURIComponent(id)}?confirm=${encodeURIComponent(id)}`, undefined, { timeoutMs: null });
  exportMemoryBank = (id: string, signal: AbortSignal) => this.open('GET', `/api/memory/banks/${encodeURIComponent(id)}/export`, signal);
  reembedMemoryBank = (id: string) => this.request<MemoryReembedJob>('POST', `/api/memory/banks/${encodeURIComponent(id)}/reembed`, {}, { timeoutMs: null });
  memoryReembedJob = (id: string) => this.request<MemoryReembedJob>('GET', `/api/memory/banks/${encodeURIComponent(id)}/reembed`);
  unifyMemoryBanks = (body: Record<string, unknown>) => this.request<MemoryUnifyAnswer>('POST', '/api/memory/migrate/unify', body, { timeoutMs: null });
  migrateFromHindsight = (body: Record<string, unknown>) => this.request<MemoryHindsightMigrateAnswer>('POST', '/api/memory/migrate/hindsight', body, { timeoutMs: null });

  /** POST …/import with JSON lines as they are (not a JSON body). */
  async importMemoryBank(id: string, lines: string, onConflict: string): Promise<MemoryImportAnswer> {
    const path = `/api/memory/banks/${encodeURIComponent(id)}/import?on_conflict=${encodeURIComponent(onConflict)}`;
    const headers = { ...(await this.baseHeaders()), 'content-type': 'application/x-ndjson' };
    let answer: { status: number; text: string };
    try {
      answer = await untimedRequest(`${this.baseUrl}${path}`, 'POST', headers, lines);
    } catch (error) {
      throw new ApiUnreachableError(this.baseUrl, describeFetchFailure(error));
    }
    return this.parse<MemoryImportAnswer>(answer.status, answer.text, path);
  }

  /**
   * `timeoutMs: null` waits as long as the server takes (a slot load: [slot].load_timeout_s,
   * 600 s by default); the default is 30 s.
   */
  async request<T>(method: string, path: string, body?: unknown, options: { timeoutMs?: number | null; headers?: Record<string, string> } = {}): Promise<T> {
    const timeoutMs = options.timeoutMs === undefined ? REQUEST_TIMEOUT_MS : options.timeoutMs;
    const headers = { ...(await this.baseHeaders()), ...options.headers, ...(body !== undefined && { 'content-type': 'application/json' }) };
    const text = body !== undefined ? JSON.stringify(body) : undefined;
    if (timeoutMs === null) {
      // fetch() gives up on answers slower than 300 s (undici's headersTimeout); node:http waits.
      let answer: { status: number; text: string };
      try {
        answer = await untimedRequest(`${this.baseUrl}${path}`, method, headers, text);
      } catch (error) {
        throw new ApiUnreachableError(this.baseUrl, describeFetchFailure(error));
      }
      return this.parse<T>(answer.status, answer.text, path);
    }
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        ...(text !== undefined && { body: text }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new ApiUnreachableError(this.baseUrl, describeFetchFailure(error));
    }
    return this.read<T>(response, path);
  }

  /** A request whose body the caller reads as it arrives (a stream); error answers throw as request() does. */
  async open(method: string, path: string, signal: AbortSignal, body?: unknown): Promise<Response> {
    let response: Response;
    const headers = { ...(await this.baseHeaders()), ...(body !== undefined && { 'content-type': 'application/json' }) };
    try {
      response = await fetch(`${this.baseUrl}${path}`, { method, headers, signal, ...(body !== undefined && { body: JSON.stringify(body) }) });
    } catch (error) {
      throw new ApiUnreachableError(this.baseUrl, describeFetchFailure(error));
    }
    if (!response.ok) await this.read(response, path);
    return response;
  }

  private async baseHeaders(): Promise<Record<string, string>> {
    return { 'x-svc-actor': 'cli', 'user-agent': `svc-cli/${VERSION}`, ...(await this.credentials()) };
  }

  private async read<T>(response: Response, path: string): Promise<T> {
    return this.parse<T>(response.status, await response.text(), path);
  }

  private parse<T>(status: number, text: string, path: string): T {
    const ok = status >= 200 && status < 300;
    let payload: unknown;
    try {
      payload = text ? JSON.parse(text) : undefined;
    } catch {
      payload = undefined;
    }
    if (ok) return payload as T;
    const envelope = isErrorEnvelope(payload)
      ? payload
      : { error: { code: `system.http_${status}`, message: `HTTP ${status} from ${path}: ${text.slice(0, 200)}`, details: {} } };
    throw new ApiResponseError(status, envelope);
  }
}

/** One request and its whole answer, with no time limit (node:http has none by default). */
function untimedRequest(url: string, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

function describeFetchFailure(error: unknown): string {
  // fetch() wraps the socket error in `cause`; node:http throws it as it is.
  const cause = (error as { cause?: { code?: string } }).cause ?? (error as { code?: string });
  switch (cause?.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ECONNRESET':
      return 'connection reset';
    default:
      return (error as Error).name === 'TimeoutError' ? 'timed out' : (cause?.code ?? (error as Error).message);
  }
}

function slotPath(name: string, suffix = ''): string {
  return `/api/slots/${encodeURIComponent(name)}${suffix}`;
}

function mcpPath(id: string, suffix = ''): string {
  return `/api/mcp/${encodeURIComponent(id)}${suffix}`;
}
