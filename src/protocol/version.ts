// The package version, read once from package.json (two levels up from src/protocol and
// from dist/protocol alike).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const VERSION: string = (require('../../package.json') as { version: string }).version;
