import { describe, expect, it } from 'vitest';
import { notWritableHint, resolvePaths, SYSTEM_CONFIG_ROOT, SYSTEM_STATE_ROOT, type HostFacts } from './paths.js';

/** Host facts for a test: nothing exists unless listed, not root, home /home/ann. */
function facts(overrides: Partial<HostFacts> & { existing?: string[] } = {}): HostFacts {
  const existing = new Set(overrides.existing ?? []);
  return {
    env: overrides.env ?? {},
    isRoot: overrides.isRoot ?? false,
    homeDir: overrides.homeDir ?? '/home/ann',
    exists: overrides.exists ?? ((path) => existing.has(path)),
  };
}

describe('resolvePaths', () => {
  it('re-roots both roots under SVC_HOME', () => {
    const paths = resolvePaths(facts({ env: { SVC_HOME: '/srv/svc-home' } }));
    expect(paths.source).toBe('SVC_HOME');
    expect(paths.configRoot).toBe('/srv/svc-home/etc/svc');
    expect(paths.stateRoot).toBe('/srv/svc-home/var/lib/svc');
    expect(paths.svcToml).toBe('/srv/svc-home/etc/svc/svc.toml');
    expect(paths.slotsDir).toBe('/srv/svc-home/etc/svc/slots');
    expect(paths.activityDb).toBe('/srv/svc-home/var/lib/svc/activity.db');
    expect(paths.registryToml).toBe('/srv/svc-home/var/lib/svc/registry/registry.toml');
    expect(paths.defaultModelsDir).toBe('/srv/svc-home/var/lib/svc/models');
    expect(paths.installSentinel).toBe('/srv/svc-home/var/lib/svc/install.json');
  });

  it('lets SVC_HOME win over root, a system install and XDG variables', () => {
    const paths = resolvePaths(facts({
      env: { SVC_HOME: '/opt/h', XDG_CONFIG_HOME: '/x/config', XDG_STATE_HOME: '/x/state' },
      isRoot: true,
      existing: [SYSTEM_CONFIG_ROOT],
    }));
    expect(paths.source).toBe('SVC_HOME');
    expect(paths.configRoot).toBe('/opt/h/etc/svc');
    expect(paths.stateRoot).toBe('/opt/h/var/lib/svc');
  });

  it('makes a relative SVC_HOME absolute and ignores a blank one', () => {
    const relative = resolvePaths(facts({ env: { SVC_HOME: 'rel/home' } }));
    expect(relative.configRoot).toBe(`${process.cwd()}/rel/home/etc/svc`);
    const blank = resolvePaths(facts({ env: { SVC_HOME: '   ' } }));
    expect(blank.source).toBe('user');
  });

  it('uses /etc/svc and /var/lib/svc for root without SVC_HOME', () => {
    const paths = resolvePaths(facts({ isRoot: true, env: { XDG_CONFIG_HOME: '/x/config' } }));
    expect(paths.source).toBe('system');
    expect(paths.configRoot).toBe('/etc/svc');
    expect(paths.stateRoot).toBe('/var/lib/svc');
    expect(paths.svcToml).toBe('/etc/svc/svc.toml');
    expect(paths.activityDb).toBe('/var/lib/svc/activity.db');
    expect(paths.defaultModelsDir).toBe('/var/lib/svc/models');
  });

  it('uses the system paths for a normal user when /etc/svc exists', () => {
    const asked: string[] = [];
    const paths = resolvePaths(facts({
      env: { XDG_CONFIG_HOME: '/x/config' },
      exists: (path) => {
        asked.push(path);
        return path === SYSTEM_CONFIG_ROOT;
      },
    }));
    expect(asked).toContain(SYSTEM_CONFIG_ROOT);
    expect(paths.source).toBe('system');
    expect(paths.configRoot).toBe(SYSTEM_CONFIG_ROOT);
    expect(paths.stateRoot).toBe(SYSTEM_STATE_ROOT);
  });

  it('uses the XDG directories for a normal user without a system install', () => {
    const paths = resolvePaths(facts({ env: { XDG_CONFIG_HOME: '/x/config', XDG_STATE_HOME: '/x/state' } }));
    expect(paths.source).toBe('user');
    expect(paths.configRoot).toBe('/x/config/svc');
    expect(paths.stateRoot).toBe('/x/state/svc');
    expect(paths.svcToml).toBe('/x/config/svc/svc.toml');
    expect(paths.activityDb).toBe('/x/state/svc/activity.db');
  });

  it('falls back to ~/.config and ~/.local/state when XDG is unset or blank', () => {
    const unset = resolvePaths(facts({ homeDir: '/home/bob' }));
    expect(unset.source).toBe('user');
    expect(unset.configRoot).toBe('/home/bob/.config/svc');
    expect(unset.stateRoot).toBe('/home/bob/.local/state/svc');
    const blank = resolvePaths(facts({ homeDir: '/home/bob', env: { XDG_CONFIG_HOME: ' ', XDG_STATE_HOME: '' } }));
    expect(blank.configRoot).toBe('/home/bob/.config/svc');
    expect(blank.stateRoot).toBe('/home/bob/.local/state/svc');
  });

  it('mixes one XDG variable with the other fallback', () => {
    const paths = resolvePaths(facts({ homeDir: '/home/bob', env: { XDG_STATE_HOME: '/s' } }));
    expect(paths.configRoot).toBe('/home/bob/.config/svc');
    expect(paths.stateRoot).toBe('/s/svc');
  });
});

describe('notWritableHint', () => {
  it('tells a normal user on a system install to use root or SVC_HOME', () => {
    const paths = resolvePaths(facts({ existing: [SYSTEM_CONFIG_ROOT] }));
    const hint = notWritableHint(paths, '/var/lib/svc');
    expect(hint).toBe('cannot write /var/lib/svc: svc is installed system-wide; run this as the service user or root, or set SVC_HOME=~/svc-home for a personal instance');
  });

  it('tells everyone else to check permissions or set SVC_HOME', () => {
    for (const paths of [resolvePaths(facts({ env: { SVC_HOME: '/h' } })), resolvePaths(facts())]) {
      const hint = notWritableHint(paths, '/some/dir');
      expect(hint).toBe('cannot write /some/dir: check its permissions, or set SVC_HOME to a directory you own');
      expect(hint).not.toContain('system-wide');
    }
  });
});
