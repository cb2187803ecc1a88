// The exit codes of `svc serve` (docs/cli.md), apart from the server so that the bin can
// name them without loading it.
/** Configuration invalid. */
export const EXIT_CONFIG_INVALID = 4;
/** Cannot write the home. */
export const EXIT_NOT_WRITABLE = 5;
/** Cannot listen. */
export const EXIT_LISTEN_FAILED = 6;
/** Another svc already serves this home (src/bin/svc.ts, before serve() runs). */
export const EXIT_HOME_IN_USE = 7;
