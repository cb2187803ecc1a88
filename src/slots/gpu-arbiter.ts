// The GPU arbiter: image generation takes a GPU exclusively (docs/routing.md, "Images and the GPU arbiter": it "switches the
// GPU into exclusive image mode, unloading LLM GPU slots"). Two modes:
//   inference: the default; LLM GPU slots load on demand as usual.
//   image:     an image slot holds the GPU; the inference slots that shared it were stopped
//              and are remembered.
// Switching:
//   - An image request enters image mode: the live inference slots on that GPU stop first
//     (never in the middle of a request: busy ones make it 503 gpu.inference_mode).
//   - An inference request for a slot on that GPU leaves image mode: the image slot stops and
//     every remembered slot comes back (busy image work makes it 503 gpu.image_mode instead).
//   - `idle_restore_minutes` after the last image request the arbiter leaves image mode by
//     itself and restores the slots; the value is read from the image slot's file at every
//     tick, so editing it applies without restarting anything. 0 = never restore by time.
// Every switch is one operation on one queue, so two requests cannot switch at once.
// Decisions come from gpu-policy.ts; this class only applies them.
import type { ResolvedConfig } from '../config/load.js';
import { SerialQueue } from '../lib/serial-queue.js';
import { ImageError } from '../protocol/errors.js';
import type { GpuModeView } from '../protocol/events.js';
import { competesWithImage, onGpu, otherImageSlotsToStop, restoreDueAt, slotsToStopForImage, type GpuSlotFacts } from './gpu-policy.js';
import { isLive } from './state-machine.js';
import type { SlotSupervisor } from './supervisor.js';

export type GpuMode = 'inference' | 'image';

/** What /api/status shows and the `gpu.mode` event carries. */
export type GpuArbiterView = GpuModeView;

export interface GpuArbiterOptions {
  supervisor: SlotSupervisor;
  config: () => ResolvedConfig;
  onChange: (view: GpuArbiterView, reason: string) => void;
  tickMs?: number;
  now?: () => number;
}

/** Seconds a client is told to wait when the other side of the GPU is busy. */
const RETRY_AFTER_S = 5;

export class GpuArbiter {
  private current: GpuMode = 'inference';
  private imageSlot: string | null = null;
  private stopped: string[] = [];
  private since: number | null = null;
  private lastImageUse: number | null = null;
  private readonly queue = new SerialQueue();
  private timer: NodeJS.Timeout | null = null;
  private readonly now: () => number;

  constructor(private readonly options: GpuArbiterOptions) {
    this.now = options.now ?? Date.now;
  }

  get mode(): GpuMode {
    return this.current;
  }

  start(): void {
    this.timer ??= setInterval(() => void this.tick().catch(() => undefined), this.options.tickMs ?? 15_000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Before an image request on `slot`: give it the GPU. Image slots off the GPU pass through. */
  async enterImageMode(slot: string): Promise<void> {
    this.lastImageUse = this.now();
    const image = this.facts(slot);
    if (!image || !onGpu(image)) return;
    await this.queue.run(async () => {
      const all = this.allFacts();
      const victims = [...slotsToStopForImage(image, all), ...otherImageSlotsToStop(image, all)];
      if (this.current === 'image' && this.imageSlot === slot && victims.length === 0) return;
      const busy = all.filter((s) => victims.includes(s.name) && s.inFlight > 0).map((s) => s.name);
      if (busy.length > 0) {
        throw new ImageError('gpu.inference_mode', `the GPU is busy with requests on ${busy.join(', ')}; image mode starts when they finish`, { image_slot: slot, busy_slots: busy, retry_after_s: RETRY_AFTER_S });
      }
      for (const name of victims) await this.options.supervisor.unload(name, `gpu arbiter: image mode for ${slot}`);
      const inference = victims.filter((name) => all.find((s) => s.name === name)?.type !== 'image');
      this.stopped = [...new Set([...this.stopped, ...inference])].sort();
      if (this.current !== 'image' || this.imageSlot !== slot) this.since = this.now();
      this.current = 'image';
      this.imageSlot = slot;
      this.options.onChange(this.view(), `image mode for ${slot}; stopped ${victims.join(', ') || 'nothing'}`);
    });
  }

  /**
   * Before an inference request (or a load) on `slot`. Cheap when the GPU is in inference
   * mode, which is what the /v1 hot path sees almost always.
   */
  async beforeInference(slot: string): Promise<void> {
    if (this.current !== 'image') return;
    await this.queue.run(async () => {
      const image = this.imageSlot === null ? undefined : this.facts(this.imageSlot);
      const wanted = this.facts(slot);
      if (this.current !== 'image' || !image || !wanted || !competesWithImage(wanted, image)) return;
      if (image.inFlight > 0) {
        throw new ImageError('gpu.image_mode', `the GPU is generating images on slot ${image.name}; slot ${slot} can start when that finishes`, { slot, image_slot: image.name, retry_after_s: RETRY_AFTER_S });
      }
      await this.leaveImageMode(`inference request for ${slot}`);
    });
  }

  /** Before an explicit load of `slot` (POST /api/slots/<name>/load, a stack apply): the mode its type needs. */
  async beforeLoad(slot: string): Promise<void> {
    if (this.options.supervisor.view(slot, { memory: false }).type === 'image') await this.enterImageMode(slot);
    else await this.beforeInference(slot);
  }

  /** Leave image mode when idle_restore_minutes have passed since the last image request. */
  async tick(): Promise<void> {
    if (this.current !== 'image') return;
    await this.queue.run(async () => {
      const due = restoreDueAt(this.lastImageUse, this.restoreMinutes() ?? 0);
      const image = this.imageSlot === null ? undefined : this.facts(this.imageSlot);
      if (this.current !== 'image' || due === null || this.now() < due || (image?.inFlight ?? 0) > 0) return;
      await this.leaveImageMode(`idle for ${this.restoreMinutes()} min`);
    });
  }

  view(): GpuArbiterView {
    const minutes = this.current === 'image' ? this.restoreMinutes() : null;
    const due = minutes === null ? null : restoreDueAt(this.lastImageUse, minutes);
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    return {
      mode: this.current,
      image_slot: this.imageSlot,
      stopped_slots: [...this.stopped],
      since: iso(this.since),
      last_image_use_at: iso(this.lastImageUse),
      idle_restore_minutes: minutes,
      restore_at: iso(due),
    };
  }

  /** Stop the image slot, go back to inference, and bring the remembered slots back. */
  private async leaveImageMode(reason: string): Promise<void> {
    const image = this.imageSlot;
    if (image !== null && this.facts(image)) await this.options.supervisor.unload(image, `gpu arbiter: ${reason}`);
    const restore = this.stopped;
    this.current = 'inference';
    this.imageSlot = null;
    this.stopped = [];
    this.since = this.now();
    this.options.onChange(this.view(), `inference mode (${reason}); restoring ${restore.join(', ') || 'nothing'}`);
    // In the background and one at a time: a restore failing (slot since removed or
    // disabled, model gone) is the slot's own error, shown on the slot.
    void (async () => {
      for (const name of restore) {
        if (this.current !== 'inference') return;
        if (this.facts(name)?.enabled) await this.options.supervisor.ensureReady(name).catch(() => undefined);
      }
    })();
  }

  /** The image slot's [image].idle_restore_minutes as configured now (hot-reloadable). */
  private restoreMinutes(): number | null {
    const entry = this.options.config().slots.find((s) => s.name === this.imageSlot);
    return entry ? entry.config.image.idle_restore_minutes : null;
  }

  private allFacts(): GpuSlotFacts[] {
    const views = new Map(this.options.supervisor.list({ memory: false }).map((v) => [v.name, v]));
    return this.options.config().slots.map((entry) => {
      const { slot } = entry.config;
      const view = views.get(entry.name);
      const state = view?.state ?? 'stopped';
      return { name: entry.name, type: slot.type, device: slot.device, gpuIndex: slot.gpu_index, enabled: slot.enabled, live: state !== 'disabled' && isLive(state), inFlight: view?.in_flight ?? 0 };
    });
  }

  private facts(name: string): GpuSlotFacts | undefined {
    return this.allFacts().find((s) => s.name === name);
  }
}
