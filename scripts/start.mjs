#!/usr/bin/env node
// `npm start`: run the gateway from this checkout with a home inside it (.svc-home/,
// git-ignored), so a fresh clone runs without root and writes nothing outside the checkout.
// An explicit SVC_HOME wins. Extra arguments go to `svc serve`.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env, SVC_HOME: process.env.SVC_HOME || join(root, '.svc-home') };
const child = spawn(process.execPath, [join(root, 'dist/bin/svc.js'), 'serve', ...process.argv.slice(2)], { env, stdio: 'inherit' });

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
