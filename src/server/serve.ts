// Start the API server: load and validate all configuration (refusing to start on any
// error), open the activity log, listen; close() shuts down gracefully (the bin calls it on
// SIGTERM, SIGINT and SIGHUP).
import { existsSync, mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { foldInbox } from '../activity/inbox.js';
import type { ResponseStore } from '../activity/responses-store.js';
import type { ActivityLog } from '../activity/store.js';
import { removeStaleTempFiles } from '../config/atomic.js';
import { recoverChangeSet } from '../config/change-set.js';
import { loadConfig } from '../config/load.js';
import { notWritableHint, type SvcPaths } from '../config/paths.js';
import { errorsOf, formatProblem, warningsOf } from '../config/problems.js';
import { isLoopbackAddress, localUrlOf } from '../lib/addresses.js';
import { buildApp } from './app.js';
import { dashboardRoot } from './routes/dashboard.js';
import { EXIT_CONFIG_INVALID, EXIT_LISTEN_FAILED, EXIT_NOT_WRITABLE } from './exit-codes.js';
import { loadUndici } from '../dispatch/forward.js';
import { activityOptions, responseBounds, ServerContext } from './context.js';
import { hasUnfinishedPulls } from '../models/pull/records.js';
import { scanAtStart } from '../models/registry-scan.js';

export interface ServeOptions {
  host: string;
  port: number;
  paths: SvcPaths;
  /** Where progress lines go (stdout in the CLI). */
  log: (line: string) => void;
}

export class StartupError extends Error {
  constructor(message: string, readonly exitCode: number) {
    super(message);
  }
}

const SHUTDOWN_GRACE_MS = 10_000;

export async function serve(options: ServeOptions): Promise<{ close: () => Promise<void>; port: number; url: string }> {
  const { paths, log } = options;
  // A change set (a stack apply) cut off by a crash is rolled back before anything reads the files.
  const recovered = await recoverChangeSet(paths).catch((error: unknown) => {
    throw new StartupError(`svc will not start: ${(error as Error).message}`, EXIT_CONFIG_INVALID);
  });
  if (recovered) log(`svc: ${recovered.label} was cut off before it finished; rolled back ${recovered.files.length} file(s) to what they were before it`);
  const outcome = await loadConfig(paths);
  if (!outcome.ok) {
    const lines = errorsOf(outcome.problems).map(formatProblem);
    throw new StartupError(`configuration is invalid; svc will not start:\n${lines.map((l) => `  ${l}`).join('\n')}`, EXIT_CONFIG_INVALID);
  }
  for (const warning of warningsOf(outcome.problems)) log(`svc: ${formatProblem(warning)}`);

  for (const dir of [paths.configRoot, paths.stateRoot, paths.defaultModelsDir]) {
    try {
      mkdirSync(dir, { recursive: true });
    } catch {
      throw new StartupError(notWritableHint(paths, dir), EXIT_NOT_WRITABLE);
    }
  }
  for (const dir of [paths.configRoot, paths.slotsDir, paths.stateRoot, dirname(paths.registryToml)]) removeStaleTempFiles(dir);

  const ctx = new ServerContext(paths, outcome.config, undefined);
  // Before listen: in auth mode no request may be judged against tokens not read yet.
  await ctx.auth.open();
  ctx.arbiter.start();
  const app = buildApp(ctx);
  // Requests that come before the engines of a previous gateway were re-adopted wait for it.
  ctx.supervisor.holdUntilInit();
  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    ctx.supervisor.releaseHold();
    ctx.auth.close();
    await ctx.supervisor.shutdown();
    throw new StartupError(`cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`, EXIT_LISTEN_FAILED);
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  ctx.listening = { host: options.host, port };
  ctx.metricsEvents.start();
  ctx.peers.start();
  // Nothing slow comes before listen (docs/performance.md, Start-up): the activity log, the
  // model scan, re-adopting engines a previous gateway left and the boot start of enabled
  // slots follow it. Starts and stops asked for meanwhile wait for the adoption.
  const afterListen = (async () => {
    try {
      ctx.activity = await openActivityLog(ctx, log);
      if (ctx.activity) ctx.responses = await openResponseStore(ctx, log);
      // Rows the CLI left while no gateway ran come before this start, as they happened.
      if (ctx.activity) await foldInbox(paths.stateRoot, ctx.activity).catch((error: Error) => log(`svc: warning: activity rows the CLI left not recorded: ${error.message}`));
      ctx.record({ action: 'system.start', kind: 'event', details: { version: ctx.version, host: options.host, port } });
      // The hindsight engine's boot probe, in the background, when a daemon is configured
      // (docs/memory.md "Degraded mode"): after the activity log opened, so that a daemon down
      // at boot is an activity row too.
      void ctx.memory.bootProbe().catch(() => undefined);
      void loadUndici();
      await scanAtStart(ctx, log);
    } finally {
      await ctx.supervisor.init(); // always: it ends the hold on starts and stops
    }
    // [slot].enabled means "start at startup": in the background, never evicting.
    void ctx.supervisor.startEnabled();
    // Enabled tool servers start in the background too (docs/mcp.md); nothing waits for them.
    void ctx.mcp.startEnabled().catch((error: unknown) => log(`svc: warning: tool servers not started: ${(error as Error).message}`));
    // Pulls cut off by a crash or a shutdown go on by themselves (docs/models.md, Jobs); with
    // none left, this costs one directory listing and the pull machinery is not loaded.
    await resumePulls(ctx).catch((error: unknown) => log(`svc: warning: unfinished pulls not resumed: ${(error as Error).message}`));
    // An update that restarted this gateway is still being health-checked by its worker.
    await (await ctx.updates()).resume();
  })().catch((error: unknown) => log(`svc: warning: start-up after listen failed: ${(error as Error)?.stack ?? String(error)}`));

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const timer = setTimeout(() => {
        process.stderr.write('svc: shutdown took too long; stopping the engines and exiting\n');
        ctx.supervisor.signalEngines();
        process.exit(1);
      }, SHUTDOWN_GRACE_MS);
      timer.unref();
      // Loads in progress give up first, so requests waiting on them end and close() is quick.
      ctx.supervisor.interruptStarts();
      await afterListen.catch(() => undefined);
      await app.close();
      ctx.metricsEvents.stop();
      ctx.peers.stop();
      ctx.arbiter.stop();
      await ctx.supervisor.shutdown();
      await ctx.mcp.stopAll();
      ctx.record({ action: 'system.stop', kind: 'event', details: { uptime_s: ctx.uptimeSeconds() } });
      ctx.activity?.close();
      ctx.responses?.close();
      ctx.auth.close();
      clearTimeout(timer);
    })());

  // The URL a client on this host uses (the instance lock records it for the CLI): a wildcard bind is reached over loopback.
  const url = localUrlOf(options.host, port);
  log(`svc ${ctx.version} listening on ${url}`);
  log(`  config: ${paths.configRoot} (${paths.source === 'SVC_HOME' ? 'SVC_HOME' : paths.source === 'user' ? 'per-user default' : 'system'})`);
  log(`  state:  ${paths.stateRoot}`);
  log(`  API:    ${url}/api/status   OpenAI base URL: ${url}/v1`);
  log(`  dashboard: ${existsSync(join(dashboardRoot(), 'index.html')) ? `${url}/` : `not built (no index.html in ${dashboardRoot()}: npm run build)`}`);
  log(`  auth:   ${outcome.config.env.authEnabled ? `on (bearer tokens; ${ctx.auth.store.list().length} in ${paths.tokensToml})` : 'off (default mode: LAN trusted; see docs/auth.md)'}`);
  if (!isLoopbackAddress(options.host) && outcome.config.svc.api.public_hostnames.length === 0) {
    log(`  names:  LAN clients reach it by IP address; a name (http://${hostname()}:${port}) needs [api].public_hostnames (docs/auth.md, "Default mode on a network")`);
  }
  if (outcome.config.env.authEnabled && !isLoopbackAddress(options.host)) {
    log(`svc: warning: auth mode, but the API listens on ${options.host}: clients on the network can reach it without the proxy's TLS; bind 127.0.0.1 (the default of --host) and let the proxy face the network`);
  }
  return { close, port, url };
}

async function resumePulls(ctx: ServerContext): Promise<void> {
  if (await hasUnfinishedPulls(ctx.paths.stateRoot)) await ctx.pulls();
}

/** Stored /v1/responses answers, in the activity database's file; undefined when it cannot be opened. */
async function openResponseStore(ctx: ServerContext, log: (line: string) => void): Promise<ResponseStore | undefined> {
  try {
    const { ResponseStore } = await import('../activity/responses-store.js');
    return ResponseStore.open(ctx.paths.activityDb, { bounds: () => responseBounds(ctx.config), onPrune: (prune) => ctx.storePruned('responses', prune) });
  } catch (error) {
    log(`svc: warning: stored responses unavailable (${(error as Error).message}); /v1/responses answers are not kept`);
    return undefined;
  }
}

/** The activity log (SQLite, loaded here: better-sqlite3 stays out of start-up); undefined when it cannot be opened. */
async function openActivityLog(ctx: ServerContext, log: (line: string) => void): Promise<ActivityLog | undefined> {
  try {
    const { ActivityLog } = await import('../activity/store.js');
    const activity = ActivityLog.open(ctx.paths.activityDb, activityOptions(ctx.config), (prune) => ctx.storePruned('activity', prune));
    activity.prune();
    return activity;
  } catch (error) {
    log(`svc: warning: activity log unavailable (${(error as Error).message}); continuing without it`);
    return undefined;
  }
}
