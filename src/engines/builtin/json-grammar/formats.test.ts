import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { gbnfMatcher, random, sampleGbnf } from './gbnf-testing.js';
import { jsonSchemaGrammar } from './index.js';

const ajv = new Ajv2020({ strict: false });
formats.default(ajv);

const grammarOf = (format: string) => jsonSchemaGrammar({ type: 'string', format }, 'schema');
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

describe('formats', () => {
  it('date: every real calendar date and nothing else (February 29 in leap years only)', () => {
    const grammar = gbnfMatcher(grammarOf('date'));
    const valid = ajv.compile({ type: 'string', format: 'date' });
    let dates = 0;
    for (const year of [0, 4, 100, 400, 1900, 1999, 2000, 2023, 2024, 2100, 2400, 9996, 9999]) {
      for (let month = 0; month <= 13; month++) {
        for (let day = 0; day <= 32; day++) {
          const date = `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
          expect(grammar.test(JSON.stringify(date)), date).toBe(valid(date));
          dates += valid(date) ? 1 : 0;
        }
      }
    }
    expect(dates).toBe(13 * 365 + 7); // leap: 0, 4, 400, 2000, 2024, 2400, 9996
  });

  it('time and date-time: RFC 3339 with a time zone, as ajv-formats checks them', () => {
    const candidates = ['00:00:00Z', '23:59:59Z', '24:00:00Z', '12:60:00Z', '12:00:60Z', '12:00:00', '12:00:00.123456789+05:30', '12:00:00.1234567890Z', '12:00:00-24:00', '12:00:00+23:59', '12:00:00z', '7:00:00Z', '12:00:00.Z'];
    const time = gbnfMatcher(grammarOf('time'));
    const validTime = ajv.compile({ type: 'string', format: 'time' });
    for (const t of candidates) if (time.test(JSON.stringify(t))) expect(validTime(t), t).toBe(true);
    expect(['00:00:00Z', '23:59:59Z', '12:00:00.123456789+05:30', '12:00:00+23:59'].every((t) => time.test(JSON.stringify(t)))).toBe(true);
    const dateTime = gbnfMatcher(grammarOf('date-time'));
    const validDateTime = ajv.compile({ type: 'string', format: 'date-time' });
    for (const d of ['2024-02-29', '2023-02-29', '2023-04-31']) {
      for (const t of candidates) {
        const s = `${d}T${t}`;
        if (dateTime.test(JSON.stringify(s))) expect(validDateTime(s), s).toBe(true);
      }
    }
    expect(dateTime.test('"2024-02-29T23:59:59.5-01:00"')).toBe(true);
    expect(dateTime.test('"2024-02-29 23:59:59Z"')).toBe(false); // a subset: only "T"
  });

  it('uuid: lower-case hex in 8-4-4-4-12', () => {
    const uuid = gbnfMatcher(grammarOf('uuid'));
    expect(uuid.test('"123e4567-e89b-12d3-a456-426614174000"')).toBe(true);
    expect(uuid.test('"123e4567e89b-12d3-a456-426614174000"')).toBe(false);
    expect(uuid.test('"123e4567-e89b-12d3-a456-42661417400g"')).toBe(false);
  });

  it('sampled values of every format validate', () => {
    for (const format of ['date', 'time', 'date-time', 'uuid']) {
      const valid = ajv.compile({ type: 'string', format });
      for (const sample of sampleGbnf(grammarOf(format), Math.floor(random(3)() * 1000), 300)) expect(valid(JSON.parse(sample)), `${format}: ${sample}`).toBe(true);
    }
  });

  it('with lengths that narrow them, still only valid values', () => {
    const grammar = jsonSchemaGrammar({ type: 'string', format: 'time', maxLength: 12 }, 'schema');
    const valid = ajv.compile({ type: 'string', format: 'time', maxLength: 12 });
    for (const sample of sampleGbnf(grammar, 5, 300)) expect(valid(JSON.parse(sample)), sample).toBe(true);
    expect(() => jsonSchemaGrammar({ type: 'string', format: 'uuid', maxLength: 35 }, 'schema')).toThrow(/outside minLength 0 and maxLength 35/);
  });
});
