import { describe, expect, it } from 'vitest';
import { parseEventQuery } from './query.js';

describe('parseEventQuery', () => {
  it('reads since, type, severity and limit; defaults limit to 200', () => {
    const parsed = parseEventQuery({ since: '12', type: 'slot.*', severity: 'warn', limit: '5' });
    expect('query' in parsed && [parsed.query.since, parsed.query.limit, parsed.query.filter.types?.test('slot.state'), [...parsed.query.filter.severities!].sort()]).toEqual([12, 5, true, ['error', 'warn']]);
    const bare = parseEventQuery({});
    expect('query' in bare && bare.query).toEqual({ filter: {}, limit: 200 });
  });

  it('the Last-Event-ID header wins over since', () => {
    const parsed = parseEventQuery({ since: '3' }, '40');
    expect('query' in parsed && parsed.query.since).toBe(40);
  });

  it('reports every bad parameter at once, each by name', () => {
    const parsed = parseEventQuery({ since: '-1', type: 'slot.stat', severity: 'loud', limit: '1001' });
    expect('problems' in parsed && parsed.problems.map((p) => p.path)).toEqual(['since', 'type', 'severity', 'limit']);
    const header = parseEventQuery({}, 'abc');
    expect('problems' in header && header.problems).toEqual([{ path: 'Last-Event-ID', message: 'expected an event id (an integer >= 0); got "abc"' }]);
    const twice = parseEventQuery({ type: ['slot.*', 'gpu.*'], limit: '0' });
    expect('problems' in twice && twice.problems.map((p) => `${p.path}: ${p.message}`)).toEqual(['type: given more than once', 'limit: expected an integer from 1 to 1000; got "0"']);
  });
});
