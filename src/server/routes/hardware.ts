// The hardware probe: GET /api/hardware reads the cached probe (hardware.json) beside a
// live host snapshot; POST /api/hardware/probe re-runs detection and rewrites the cache.
import type { FastifyInstance } from 'fastify';
import { probeHardware, readHardwareJson, writeHardwareJson } from '../../host/hardware.js';
import { hostSnapshot } from '../../host/memory.js';
import { actorOf } from '../request.js';
import type { HardwarePayload } from '../../protocol/system.js';
import type { ServerContext } from '../context.js';

export function registerHardwareRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/api/hardware', async (): Promise<HardwarePayload> => {
    return { probe: await readHardwareJson(ctx.paths), host: hostSnapshot() };
  });

  app.post('/api/hardware/probe', async (request) => {
    // One writer for config files: two probes at once write one after the other.
    return ctx.configWrites.run(async () => {
      const probe = await probeHardware();
      await writeHardwareJson(ctx.paths, probe);
      ctx.record({
        action: 'hardware.probe',
        actor: actorOf(request),
        target: 'hardware.json',
        message: `recommended --hardware ${probe.recommended}: ${probe.recommended_reason}`,
        details: {
          recommended: probe.recommended,
          cpu: probe.cpu.model,
          gpus: probe.gpus.map((gpu) => `${gpu.card} ${gpu.vendor_name} ${gpu.driver ?? '?'}`),
          npus: probe.npus.map((npu) => `${npu.name} ${npu.kind}`),
        },
      });
      return probe;
    });
  });
}
