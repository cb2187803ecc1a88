// Limits and defaults of slot requests, apart from their zod schemas (slot-requests.ts) so
// that the CLI can name them in its option help without loading zod (docs/performance.md).

/** `--ctx-size`: at least 128; 4096 when create is given none (docs/cli.md, "svc slot"). */
export const MIN_CTX_SIZE = 128;
export const MAX_CTX_SIZE = 10_000_000;
export const DEFAULT_CTX_SIZE = 4096;
/** `slot logs -n`: 200 by default; the supervisor keeps the last 500 lines of each engine log. */
export const DEFAULT_LOG_LINES = 200;
export const LOG_RING_LINES = 500;
