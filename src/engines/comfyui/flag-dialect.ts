// ComfyUI's command line (comfy/cli_args.py, read by Python's argparse: a unique prefix of a
// long flag is that flag, and `--flag=value` is one token). LAN flags choose devices,
// precision, memory and attention modes; host-only ones name directories, extra model paths,
// TLS files, a front end fetched from the internet, the node manager, a database or CORS.
// --listen and --port are svc's own (protocol/host-only.ts). "V": takes a value.
import { type FlagDialect, groups } from '../flag-rules.js';

const LAN = [
  '--cuda-device V', '--default-device V', '--cuda-malloc', '--disable-cuda-malloc', '--force-fp32', '--force-fp16', '--fp32-unet', '--fp64-unet',
  '--bf16-unet', '--fp16-unet', '--fp8_e4m3fn-unet', '--fp8_e5m2-unet', '--fp8_e8m0fnu-unet', '--fp16-vae', '--fp32-vae', '--bf16-vae', '--cpu-vae',
  '--fp8_e4m3fn-text-enc', '--fp8_e5m2-text-enc', '--fp16-text-enc', '--fp32-text-enc', '--bf16-text-enc', '--force-channels-last',
  '--oneapi-device-selector V', '--disable-ipex-optimize', '--supports-fp8-compute', '--preview-method V', '--preview-size V', '--cache-classic',
  '--cache-lru V', '--cache-none', '--cache-ram V', '--use-split-cross-attention', '--use-quad-cross-attention', '--use-pytorch-cross-attention',
  '--use-sage-attention', '--use-flash-attention', '--disable-xformers', '--force-upcast-attention', '--dont-upcast-attention', '--gpu-only',
  '--highvram', '--normalvram', '--lowvram', '--novram', '--cpu', '--reserve-vram V', '--async-offload', '--disable-async-offload',
  '--force-non-blocking', '--default-hashing-function V', '--disable-smart-memory', '--deterministic', '--disable-pinned-memory',
  '--mmap-torch-files', '--disable-mmap', '--dont-print-server', '--disable-metadata', '--log-stdout', '--enable-compress-response-body',
];

const HOST = [
  '--listen', '--port V', '--tls-keyfile V', '--tls-certfile V', '--enable-cors-header', '--max-upload-size V', '--base-directory V',
  '--extra-model-paths-config V', '--output-directory V', '--temp-directory V', '--input-directory V', '--user-directory V', '--auto-launch',
  '--disable-auto-launch', '--directml', '--enable-manager', '--disable-manager-ui', '--enable-manager-legacy-ui', '--quick-test-for-ci',
  '--windows-standalone-build', '--disable-all-custom-nodes', '--whitelist-custom-nodes V', '--disable-api-nodes', '--multi-user',
  '--verbose', '--fast', '--front-end-version V', '--front-end-root V', '--comfy-api-base V', '--database-url V',
];

export const comfyUiDialect: FlagDialect = { engine: 'comfyui', underscores: false, argparse: true, groups: [...groups(true, LAN), ...groups(false, HOST)] };
