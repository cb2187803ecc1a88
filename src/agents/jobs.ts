// Agent jobs (install, switch, upgrade): each runs in the gateway after the route answered 202;
// its steps become `agent.install.progress` events and its end one `agent.install.done` or
// `agent.install.failed` event and an activity row. Jobs live as long as the gateway.
import { randomUUID } from 'node:crypto';
import type { ActivityInput } from '../activity/store.js';
import type { AgentJob, AgentJobAction } from '../protocol/agents.js';
import { AgentError, SvcError } from '../protocol/errors.js';
import type { EventInput } from '../protocol/events.js';
import type { ProgressSink } from './driver.js';

/** Jobs kept for GET /api/agents/jobs/<id>; the oldest finished ones go first. */
const KEPT_JOBS = 100;

export interface JobDeps {
  publish: (event: EventInput) => void;
  record: (entry: ActivityInput) => void;
}

export class AgentJobs {
  private readonly jobs = new Map<string, AgentJob>();
  /** agent -> its running job: one job per agent at a time. */
  private readonly running = new Map<string, AgentJob>();
  private readonly finished = new Map<string, Promise<void>>();

  constructor(private readonly deps: JobDeps) {}

  get(id: string): AgentJob {
    const job = this.jobs.get(id);
    if (!job) throw new AgentError('agent.job_not_found', `no agent job has the id ${JSON.stringify(id.slice(0, 80))}`, { id: id.slice(0, 80) });
    return job;
  }

  runningFor(agent: string): AgentJob | undefined {
    return this.running.get(agent);
  }

  /** The newest job of `agent`, running or finished. */
  lastFor(agent: string): AgentJob | null {
    let last: AgentJob | null = null;
    for (const job of this.jobs.values()) if (job.agent === agent) last = job;
    return last;
  }

  /** Starts `work` as a job of `agent`; answers the job at once (the caller answers 202 with it). */
  start(agent: string, action: AgentJobAction, actor: string, work: (progress: ProgressSink, job: AgentJob) => Promise<string | null>, replaced: string | null = null): AgentJob {
    const job: AgentJob = { id: randomUUID(), agent, action, state: 'running', started_at: new Date().toISOString(), finished_at: null, version: null, steps: [], error: null, replaced };
    this.keep(job);
    this.running.set(agent, job);
    const base = { job: job.id, agent, action };
    this.deps.publish({ type: 'agent.install.started', source: `agent:${agent}`, message: `${action} of ${agent} started`, data: base });
    const progress: ProgressSink = (step, message, data) => {
      job.steps.push({ step, message, at: new Date().toISOString() });
      this.deps.publish({ type: 'agent.install.progress', source: `agent:${agent}`, message: `${agent} ${step}: ${message}`, data: { ...base, step, ...data } });
    };
    const finished = (async () => {
      try {
        job.version = await work(progress, job);
        job.state = 'done';
        this.deps.publish({ type: 'agent.install.done', source: `agent:${agent}`, message: `${action} of ${agent} done${job.version ? ` (${job.version})` : ''}`, data: { ...base, version: job.version } });
        this.deps.record({ action: `agent.${action}`, target: agent, actor, details: { job: job.id, version: job.version, replaced } });
      } catch (error) {
        const failure = error instanceof SvcError ? error : new AgentError('agent.install_failed', (error as Error).message ?? String(error), { step: job.steps.at(-1)?.step ?? null });
        job.state = 'failed';
        job.error = { code: failure.code, message: failure.message, details: failure.details };
        this.deps.publish({ type: 'agent.install.failed', source: `agent:${agent}`, severity: 'error', message: `${action} of ${agent} failed: ${failure.message.split('\n')[0]}`, data: { ...base, code: failure.code } });
        this.deps.record({ action: `agent.${action}`, target: agent, actor, outcome: 'error', message: failure.message.split('\n')[0], details: { job: job.id, code: failure.code, replaced } });
      } finally {
        job.finished_at = new Date().toISOString();
        this.running.delete(agent);
      }
    })();
    this.finished.set(job.id, finished);
    return job;
  }

  /** Resolves when the job has finished (tests, and a route that waits). */
  async settled(id: string): Promise<AgentJob> {
    const job = this.get(id);
    await this.finished.get(id);
    return job;
  }

  private keep(job: AgentJob): void {
    this.jobs.set(job.id, job);
    if (this.jobs.size <= KEPT_JOBS) return;
    for (const [id, old] of this.jobs) {
      if (old.state !== 'running') {
        this.jobs.delete(id);
        this.finished.delete(id);
        return;
      }
    }
  }
}
