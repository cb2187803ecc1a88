// ComfyUI, the image engine (docs/routing.md, "Images and the GPU arbiter"):
//   process:   <[engines].comfyui, e.g. python3 /opt/ComfyUI/main.py> --listen 127.0.0.1 --port P <profile flags> <extra_args>
//   container: <rt> run ... --network=host --ipc=host --entrypoint=bash <image>
//                -lc 'cd /opt/ComfyUI && exec python main.py --listen 127.0.0.1 --port P <flags>'
// with the slot's GPU devices, seccomp/apparmor unconfined and label=disable, and its
// folders under <model store>/comfyui: models (→ /root/comfy-models), output, input, user
// and custom_nodes (→ /opt/ComfyUI/…), plus extra_model_paths.yaml read-only when present.
// On the host network nothing is published, so it listens on 127.0.0.1 (engines never bind
// a wildcard address). The port is the slot's (image slots conventionally use 8188).
// Health: GET /system_stats. The slot serves `sdxl-turbo` unless [model].default says otherwise.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SlotType } from '../../config/schema/common.js';
import { quoteWord } from '../../lib/shell-words.js';
import { normalizeArgv } from '../argv.js';
import type { HostDevices, Volume } from '../container.js';
import { defineEngine } from '../engine-launch.js';
import type { EngineAdapter, EngineRoute } from '../types.js';
import { probeSystemStats, SYSTEM_STATS_PATH } from './health.js';

export const COMFYUI_SERVES: readonly SlotType[] = ['image'];
export const COMFYUI_DEFAULT_MODEL = 'sdxl-turbo';
export const COMFYUI_DEFAULT_IMAGE = 'docker.io/kyuz0/amd-strix-halo-comfyui:latest';
export const COMFYUI_HOME = '/opt/ComfyUI';
/**
 * ComfyUI's own API (not OpenAI's): queue a graph, poll its history until status.completed
 * (status_str "error" is a failure), fetch each output image.
 */
export const COMFYUI_ROUTES: Readonly<Record<string, EngineRoute>> = {
  health: { method: 'GET', path: SYSTEM_STATS_PATH },
  prompt: { method: 'POST', path: '/prompt' },
  history: { method: 'GET', path: '/history/{prompt_id}' },
  view: { method: 'GET', path: '/view' },
};

export function buildComfyArgv(port: number, host: string, profileFlags: readonly string[], extra: readonly string[]): string[] {
  return normalizeArgv(['--listen', host, '--port', String(port), ...profileFlags, ...extra]);
}

/** The container's folders under <store>/comfyui; the paths file only when it exists (a missing source fails the run). */
export function comfyVolumes(store: string, exists: (path: string) => boolean = existsSync): Volume[] {
  const root = join(store, 'comfyui');
  const volumes: Volume[] = [{ source: join(root, 'models'), target: '/root/comfy-models', mode: 'rw' }];
  for (const dir of ['output', 'input', 'user', 'custom_nodes']) volumes.push({ source: join(root, dir), target: `${COMFYUI_HOME}/${dir}`, mode: 'rw' });
  const paths = join(root, 'extra_model_paths.yaml');
  if (exists(paths)) volumes.push({ source: paths, target: `${COMFYUI_HOME}/extra_model_paths.yaml`, mode: 'ro' });
  return volumes;
}

export function createComfyUiAdapter(deps: { hostDevices?: () => HostDevices; exists?: (path: string) => boolean } = {}): EngineAdapter {
  return defineEngine({
    provider: 'comfyui',
    serves: COMFYUI_SERVES,
    seedProfile: 'comfyui',
    defaultImage: COMFYUI_DEFAULT_IMAGE,
    routes: COMFYUI_ROUTES,
    defaultModelId: () => COMFYUI_DEFAULT_MODEL,
    health: (baseUrl, signal) => probeSystemStats(baseUrl, signal),
    launch: (ctx, flags) => ({
      argv: (host) => buildComfyArgv(ctx.slot.config.slot.port, host, flags.profile, flags.extra),
      container: {
        entrypoint: 'bash',
        wrap: (argv) => ['-lc', `cd ${COMFYUI_HOME} && exec python main.py ${argv.map(quoteWord).join(' ')}`],
        network: 'host',
        ipc: 'host',
        securityOpts: ['seccomp=unconfined', 'apparmor=unconfined', 'label=disable'],
        volumes: comfyVolumes(ctx.modelStore, deps.exists),
      },
    }),
  }, deps);
}

export const comfyUiAdapter: EngineAdapter = createComfyUiAdapter();
