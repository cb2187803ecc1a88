// A real npm registry on this machine (verdaccio, a devDependency) for the update tests:
// a user is created over the registry's own API and versions are published with the npm CLI.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './gateway.js';
import { freePort } from './ports.js';
import { waitFor } from './wait.js';

export const PACKAGE = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { name: string; version: string } & Record<string, unknown>;

export interface LocalRegistry {
  url: string;
  /** Publish the package in `dir` (its package.json names it), under `tag` (npm's default: latest). */
  publish(dir: string, tag?: string): void;
  /** A scratch directory that stop() removes. */
  dir: string;
  stop(): void;
}

export async function startNpmRegistry(): Promise<LocalRegistry> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-registry-npm-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  writeFileSync(join(dir, 'config.yaml'), [
    `storage: ${join(dir, 'storage')}`,
    'auth:', '  htpasswd:', `    file: ${join(dir, 'htpasswd')}`, '    max_users: 10',
    'uplinks: {}',
    'packages:', "  '**':", '    access: $all', '    publish: $authenticated',
    `listen: 127.0.0.1:${port}`,
    'max_body_size: 100mb',
    'web:', '  enable: false',
    'log: { type: stdout, format: pretty, level: fatal }',
  ].join('\n'));
  const server: ChildProcess = spawn(process.execPath, [join(REPO_ROOT, 'node_modules/verdaccio/bin/verdaccio'), '--config', join(dir, 'config.yaml')], { stdio: 'ignore' });
  await waitFor(async () => (await fetch(`${url}-/ping`)).ok, { what: 'verdaccio to answer its ping' });
  const user = await fetch(`${url}-/user/org.couchdb.user:tester`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'tester', password: 'a-test-password' }) });
  const { token } = (await user.json()) as { token: string };
  const npmrc = join(dir, 'npmrc');
  writeFileSync(npmrc, `//127.0.0.1:${port}/:_authToken=${token}\n`);
  return {
    url,
    dir,
    // --ignore-scripts: a build of the checkout is published as it is (its prepack would rebuild dist/).
    publish: (pkg, tag) => void execFileSync('npm', ['publish', '--ignore-scripts', '--registry', url, '--userconfig', npmrc, ...(tag ? ['--tag', tag] : [])], { cwd: pkg, stdio: 'pipe' }),
    stop() {
      server.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A package directory holding only a package.json and a README (enough for the check). */
export function stubPackage(registry: LocalRegistry, version: string): string {
  const pkg = join(registry.dir, `stub-${version}`);
  mkdirSync(pkg);
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: PACKAGE.name, version, description: 'test build' }));
  writeFileSync(join(pkg, 'README.md'), '# test\n');
  return pkg;
}

/**
 * The checkout as npm would pack it (package.json's `files`: dist without tests, deploy, docs,
 * the README, manifest.json), under another version. A build broken at `serve` exits at once
 * there and works otherwise (it installs and migrates, and fails only its health check); one
 * broken at `validate` rejects every configuration (after migrating it).
 */
export function checkoutPackage(registry: LocalRegistry, version: string, options: { brokenAt?: 'serve' | 'validate' } = {}): string {
  const pkg = join(registry.dir, `build-${version}`);
  mkdirSync(pkg);
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ ...PACKAGE, version }, null, 2));
  for (const part of ['dist', 'deploy', 'docs', 'README.md', 'manifest.json']) {
    cpSync(join(REPO_ROOT, part), join(pkg, part), { recursive: true, preserveTimestamps: true, filter: (src) => !/\.test\.(js|d\.ts|js\.map)$/.test(src) });
  }
  if (options.brokenAt) {
    renameSync(join(pkg, 'dist/bin/svc.js'), join(pkg, 'dist/bin/svc-real.js'));
    writeFileSync(join(pkg, 'dist/bin/svc.js'), [
      '#!/usr/bin/env node',
      `if (process.argv.includes('${options.brokenAt}')) {`,
      `  process.stderr.write('this build of svc is broken on purpose: ${options.brokenAt} exits at once\\n');`,
      '  process.exit(1);',
      '}',
      "await import('./svc-real.js');",
    ].join('\n'));
  }
  return pkg;
}
