// svc registry export|import, svc migrate model-layout and svc capabilities migrate, run as
// a user runs them: the real CLI on a temp home, real files, real tarballs (GNU tar's too).
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { runSvc, tempHome } from './helpers/gateway.js';

const REGISTRY = '[models.tiny]\npath = "/models/tiny.gguf"\nname = "Tiny"\n\n[models.emb]\npath = "/models/emb.gguf"\ncapabilities = ["embed"]\n';

function homeWithRegistry(text = REGISTRY) {
  const home = tempHome();
  mkdirSync(join(home.stateRoot, 'registry'), { recursive: true });
  writeFileSync(join(home.stateRoot, 'registry/registry.toml'), text);
  return home;
}

describe('svc registry export and import', () => {
  it('round-trips: the imported registry.toml equals the exported one', () => {
    const home = homeWithRegistry();
    const tarball = join(home.home, 'backup.tar.gz');
    const exported = runSvc(['registry', 'export', tarball], { home: home.home });
    expect(exported.status, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('2 model(s)');
    expect(execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })).toBe('registry/registry.toml\n');
    const dest = join(home.home, 'restored.toml');
    const imported = runSvc(['registry', 'import', tarball, '--dest', dest], { home: home.home });
    expect(imported.status, imported.stderr).toBe(0);
    expect(readFileSync(dest, 'utf8')).toBe(REGISTRY);
  });

  it('refuses to overwrite without --force (exit 1), replaces with it', () => {
    const source = homeWithRegistry();
    const tarball = join(source.home, 'b.tgz');
    runSvc(['registry', 'export', tarball], { home: source.home });
    const target = homeWithRegistry('[models.other]\npath = "/x.gguf"\n');
    const file = join(target.stateRoot, 'registry/registry.toml');
    const refused = runSvc(['registry', 'import', tarball], { home: target.home });
    expect([refused.status, refused.stderr]).toEqual([1, expect.stringMatching(/^svc: model.backup_exists: .*registry.toml exists; pass --force/)]);
    expect(readFileSync(file, 'utf8')).toBe('[models.other]\npath = "/x.gguf"\n');
    const forced = runSvc(['registry', 'import', tarball, '--force'], { home: target.home });
    expect(forced.status, forced.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(REGISTRY);
  });

  it('reads the original\'s backup layout made by GNU tar', () => {
    const home = tempHome();
    const src = join(home.home, 'src');
    mkdirSync(join(src, 'var/lib/svc/registry'), { recursive: true });
    writeFileSync(join(src, 'var/lib/svc/registry/registry.toml'), REGISTRY);
    execFileSync('tar', ['-czf', join(home.home, 'svc-v0.1-backup.tar.gz'), '-C', src, 'var']);
    const imported = runSvc(['registry', 'import', join(home.home, 'svc-v0.1-backup.tar.gz')], { home: home.home });
    expect(imported.status, imported.stderr).toBe(0);
    expect(readFileSync(join(home.stateRoot, 'registry/registry.toml'), 'utf8')).toBe(REGISTRY);
  });

  it('refuses a malicious or broken tarball (symlink, traversal, not a tar, missing) with exit 2 and writes nothing', () => {
    const home = tempHome();
    const dest = join(home.stateRoot, 'registry/registry.toml');
    const src = join(home.home, 'evil');
    mkdirSync(join(src, 'registry'), { recursive: true });
    symlinkSync('/etc/passwd', join(src, 'registry/registry.toml'));
    execFileSync('tar', ['-czf', join(home.home, 'link.tgz'), '-C', src, 'registry']);
    const link = runSvc(['registry', 'import', join(home.home, 'link.tgz')], { home: home.home });
    expect([link.status, link.stderr]).toEqual([2, expect.stringMatching(/model.backup_invalid: .*symbolic link/)]);
    execFileSync('tar', ['-czf', join(home.home, 'dots.tgz'), '-P', '-C', src, '--transform', 's,^,../../,', 'registry']);
    const dots = runSvc(['registry', 'import', join(home.home, 'dots.tgz')], { home: home.home });
    expect([dots.status, dots.stderr]).toEqual([2, expect.stringMatching(/model.backup_invalid: /)]);
    const notTar = join(home.home, 'junk.tgz');
    writeFileSync(notTar, gzipSync(Buffer.from('just text, no tar here '.repeat(50))));
    const junk = runSvc(['registry', 'import', notTar], { home: home.home });
    expect([junk.status, junk.stderr]).toEqual([2, expect.stringMatching(/not a tar archive/)]);
    const missing = runSvc(['registry', 'import', join(home.home, 'nope.tgz')], { home: home.home });
    expect(missing.status).toBe(2);
    expect(existsSync(dest)).toBe(false);
  });
});

describe('svc migrate model-layout', () => {
  it('dry run lists the links; --apply creates them and moves nothing; a second run skips', () => {
    const home = tempHome();
    const mount = join(home.home, 'mnt');
    const canonical = join(home.home, 'canonical');
    mkdirSync(mount);
    writeFileSync(join(mount, 'q.gguf'), 'GGUF');
    mkdirSync(join(home.stateRoot, 'registry'), { recursive: true });
    writeFileSync(join(home.stateRoot, 'registry/registry.toml'), `[models.q]\npath = "${join(mount, 'q.gguf')}"\n\n[models.far]\npath = "/elsewhere/f.gguf"\n`);
    const args = ['migrate', 'model-layout', '--mount-root', mount, '--canonical-root', canonical];
    const dry = runSvc(args, { home: home.home });
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/q\s+create\s+.*canonical\/llamacpp\/chat\/q\.gguf/);
    expect(dry.stdout).toContain('dry run: would create 1 link(s)');
    expect(existsSync(join(canonical, 'llamacpp/chat/q.gguf'))).toBe(false);
    const applied = runSvc([...args, '--apply'], { home: home.home });
    expect(applied.status, applied.stderr).toBe(0);
    const link = join(canonical, 'llamacpp/chat/q.gguf');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(join(mount, 'q.gguf'));
    expect(readFileSync(join(mount, 'q.gguf'), 'utf8')).toBe('GGUF');
    expect(runSvc([...args, '--apply'], { home: home.home }).stdout).toMatch(/q\s+skip-exists/);
  });
});

describe('svc capabilities migrate', () => {
  it('clears a selection whose model left the registry; --dry-run writes nothing; idempotent', () => {
    const home = homeWithRegistry();
    home.write('slots/em.toml', '[slot]\nname = "em"\ntype = "embedding"\nport = 8150\n\n[model]\ndefault = "emb"\n');
    const caps = home.write('capabilities.toml', '[capabilities.embed]\nslot = "em"\nmodel = "removed-model"\n\n[capabilities.rerank]\nslot = "em"\n');
    const before = readFileSync(caps, 'utf8');
    const dry = runSvc(['capabilities', 'migrate', '--dry-run'], { home: home.home });
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/embed\s+em\s+removed-model\s+model\s+removed-model\s+-\s+the model is no longer in the registry/);
    expect(dry.stdout).toContain('would rewrite 1 selection(s)');
    expect(readFileSync(caps, 'utf8')).toBe(before);
    const run = runSvc(['capabilities', 'migrate'], { home: home.home });
    expect(run.status, run.stderr).toBe(0);
    expect(readFileSync(caps, 'utf8')).toMatch(/\[capabilities\.embed\]\nslot = "em"\nenabled = false/);
    expect(runSvc(['config', 'validate'], { home: home.home }).status).toBe(0);
    expect(runSvc(['capabilities', 'migrate'], { home: home.home }).stdout).toBe('nothing to migrate\n');
  });
});
