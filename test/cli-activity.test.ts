// The gateway is the one writer of activity.db (issue 23). A change the CLI makes to the files
// by itself (here `svc config migrate`) waits in the activity inbox, and the gateway records
// it, as the CLI's and at the time it was made: at its next start, or before it answers
// GET /api/activity when it runs already.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LATEST_SCHEMA_VERSION } from '../src/config/schema/svc-toml.js';
import { api, runSvc, useTempGateways } from './helpers/gateway.js';

const V1 = '[memory.embedding]\nrerank_url = "http://x:1"\n';

describe('activity rows of changes the CLI makes by itself', () => {
  const { home, gateway } = useTempGateways(afterEach);

  it('with no gateway: the CLI opens no database, and the next gateway records the row', async () => {
    const h = home({ 'svc.toml': V1 });
    const before = Date.now();
    const migrate = runSvc(['config', 'migrate'], { home: h.home });
    expect(migrate.stderr).toBe('');
    expect(migrate.status).toBe(0);
    expect(existsSync(join(h.stateRoot, 'activity.db'))).toBe(false);
    expect(readdirSync(join(h.stateRoot, 'activity-inbox'))).toHaveLength(1);

    const gw = await gateway(h);
    const rows = (await api(gw.url, '/api/activity?action=config.migrate')).json.items;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ action: 'config.migrate', actor: 'cli', target: 'svc.toml', details: { from: 1, to: LATEST_SCHEMA_VERSION, backup: join(h.configRoot, 'svc.toml.v1.bak') } });
    // The time of the change, not of the gateway's start.
    const start = (await api(gw.url, '/api/activity?action=system.start')).json.items[0];
    expect(Date.parse(rows[0].ts)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(rows[0].ts)).toBeLessThanOrEqual(Date.parse(start.ts));
    expect(readdirSync(join(h.stateRoot, 'activity-inbox'))).toEqual([]);
  });

  it('with a gateway running: the row is in the log the next time it is read, once', async () => {
    const h = home();
    const gw = await gateway(h);
    h.write('svc.toml', V1);
    expect(runSvc(['config', 'migrate'], { home: h.home }).status).toBe(0);
    const [first, second] = await Promise.all([1, 2].map(() => api(gw.url, '/api/activity?action=config.migrate')));
    expect(first!.json.items.length + second!.json.items.length).toBeGreaterThanOrEqual(1);
    const rows = (await api(gw.url, '/api/activity?action=config.migrate')).json.items;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actor: 'cli', target: 'svc.toml', details: { from: 1, to: LATEST_SCHEMA_VERSION } });
  });

  it('records nothing when [activity] is off', async () => {
    const h = home({ 'svc.toml': `${V1}[activity]\nenabled = false\n` });
    expect(runSvc(['config', 'migrate'], { home: h.home }).status).toBe(0);
    expect(existsSync(join(h.stateRoot, 'activity-inbox'))).toBe(false);
    expect(existsSync(join(h.stateRoot, 'activity.db'))).toBe(false);
  });
});
