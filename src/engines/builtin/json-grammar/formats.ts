// The string formats the grammar can hold, as patterns (pattern.ts parses them like a
// schema's own), each allowing only values that validators accept (ajv-formats' full mode):
// real calendar dates with February 29 in leap years only, RFC 3339 times with their time
// zone, lower-case UUIDs. A subset where the format allows more (a time's fraction has at
// most 9 digits; only "T" between date and time).

const YEAR = '\\d{4}';
const DAY_OF = {
  long: '(?:0[1-9]|[12]\\d|3[01])',
  short: '(?:0[1-9]|[12]\\d|30)',
  february: '(?:0[1-9]|1\\d|2[0-8])',
};
/** Years divisible by 4 but not by 100, or by 400. */
const LEAP_YEAR = '(?:\\d\\d(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)';
const DATE = `(?:${YEAR}-(?:(?:0[13578]|1[02])-${DAY_OF.long}|(?:0[469]|11)-${DAY_OF.short}|02-${DAY_OF.february})|${LEAP_YEAR}-02-29)`;
const HOUR = '(?:[01]\\d|2[0-3])';
const TIME = `${HOUR}:[0-5]\\d:[0-5]\\d(?:\\.\\d{1,9})?(?:Z|[+-]${HOUR}:[0-5]\\d)`;
const HEX = '[0-9a-f]';

export const FORMAT_PATTERNS: Readonly<Record<string, string>> = {
  date: `^${DATE}$`,
  time: `^${TIME}$`,
  'date-time': `^${DATE}T${TIME}$`,
  uuid: `^${HEX}{8}-${HEX}{4}-${HEX}{4}-${HEX}{4}-${HEX}{12}$`,
};
