// Run by `svc doctor` in a child process: does node-llama-cpp's binding load, and which GPU
// build does `gpu: 'auto'` pick? One JSON line on stdout. A script file, not `node -e`:
// node-llama-cpp tests its binding in a forked process, which inherits -e.
import { getLlama } from 'node-llama-cpp';

const options = { build: 'never', usePrebuiltBinaries: true, skipDownload: true, progressLogs: false } as const;
const cpu = await getLlama({ ...options, gpu: false });
let gpu: string | false = false;
let devices: string[] = [];
try {
  const auto = await getLlama({ ...options, gpu: 'auto' });
  gpu = auto.gpu;
  devices = await auto.getGpuDeviceNames().catch(() => []);
} catch {
  // No GPU build loads here: the CPU build serves every slot.
}
process.stdout.write(`${JSON.stringify({ cpu: cpu.gpu === false, gpu, devices })}\n`);
process.exit(0);
