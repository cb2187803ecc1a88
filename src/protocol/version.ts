// The package version, read once from package.json (two levels up from src/protocol and
// from dist/protocol alike).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const pkg = require('../../package.json') as { name: string; version: string };
export const VERSION: string = pkg.version;
/** The npm package svc is published as: what `svc update` asks the registry about. */
export const PACKAGE_NAME: string = pkg.name;
