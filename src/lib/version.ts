// The package version, read once from package.json at the package's root.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './code-dir.js';

const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
export const VERSION: string = pkg.version;
/** The npm package svc is published as: what `svc update` asks the registry about. */
export const PACKAGE_NAME: string = pkg.name;
