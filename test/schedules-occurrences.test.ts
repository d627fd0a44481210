// A schedule's occurrences, computed from fixed instants (no wall clock, no database): the cron
// expression on the zone's wall clock, and the DST rules of src/services/schedules/occurrences.ts
// in both directions, in Europe/Rome and America/New_York.
import { describe, expect, it } from 'vitest';
import { canonicalZone, cronPattern, occurrenceTimerKey, scheduleRoutes } from '../src/contract/schedules.ts';
import {
  countOccurrences,
  instantOf,
  latestOccurrence,
  localTime,
  nextOccurrence,
  nextOccurrences,
} from '../src/services/schedules/occurrences.ts';
import { occurrenceTxn } from '../src/services/schedules/rows.ts';

const ms = (iso: string) => Date.parse(iso);
const iso = (t: number) => new Date(t).toISOString().replace('.000Z', 'Z');
const next = (cron: string, timezone: string, from: string, n: number) => nextOccurrences({ cron, timezone }, ms(from), n).map(iso);
const rome = 'Europe/Rome';
const newYork = 'America/New_York';

describe('occurrences on the wall clock of a zone', () => {
  it('reads a five-field expression in the zone: 09:00 in Rome is 08:00Z in winter and 07:00Z in summer', () => {
    expect(next('0 9 * * *', rome, '2026-11-30T07:59:39Z', 2)).toEqual(['2026-11-30T08:00:00Z', '2026-12-01T08:00:00Z']);
    expect(next('0 9 * * *', rome, '2026-06-30T12:00:00Z', 1)).toEqual(['2026-07-01T07:00:00Z']);
    expect(next('0 9 * * *', 'UTC', '2026-06-30T12:00:00Z', 1)).toEqual(['2026-07-01T09:00:00Z']);
  });

  it('reads six fields as seconds first, and the result is strictly after the instant given', () => {
    expect(next('*/1 * * * * *', 'UTC', '2026-12-01T10:00:00Z', 3)).toEqual([
      '2026-12-01T10:00:01Z',
      '2026-12-01T10:00:02Z',
      '2026-12-01T10:00:03Z',
    ]);
    expect(iso(nextOccurrence({ cron: '*/1 * * * * *', timezone: 'UTC' }, ms('2026-12-01T10:00:00.500Z'))!)).toBe('2026-12-01T10:00:01Z');
    expect(next('@daily', 'UTC', '2026-12-01T10:00:00Z', 1)).toEqual(['2026-12-02T00:00:00Z']);
  });

  it('gives the instant with its wall-clock time and offset', () => {
    expect(localTime(rome, ms('2026-11-30T08:00:00Z'))).toBe('2026-11-30T09:00:00+01:00');
    expect(localTime(rome, ms('2026-07-01T07:00:00Z'))).toBe('2026-07-01T09:00:00+02:00');
    expect(localTime(newYork, ms('2026-11-01T05:30:00Z'))).toBe('2026-11-01T01:30:00-04:00');
    expect(localTime('Asia/Kolkata', ms('2026-11-30T08:00:00Z'))).toBe('2026-11-30T13:30:00+05:30');
  });
});

describe('DST: a local time the zone skips fires once, at the shift', () => {
  it('02:30 daily in Rome on 29 March 2026 (02:00 → 03:00) fires at 03:00 CEST, 01:00Z, then 02:30 again', () => {
    expect(next('30 2 * * *', rome, '2026-03-27T12:00:00Z', 4)).toEqual([
      '2026-03-28T01:30:00Z', // 02:30 CET
      '2026-03-29T01:00:00Z', // 02:30 does not exist: the shift, 03:00 CEST
      '2026-03-30T00:30:00Z', // 02:30 CEST
      '2026-03-31T00:30:00Z',
    ]);
    expect(localTime(rome, ms('2026-03-29T01:00:00Z'))).toBe('2026-03-29T03:00:00+02:00');
  });

  it('every 15 minutes across the gap: 02:00–02:45 and 03:00 are one occurrence at the shift', () => {
    expect(next('*/15 * * * *', rome, '2026-03-29T00:30:00Z', 4)).toEqual([
      '2026-03-29T00:45:00Z', // 01:45 CET
      '2026-03-29T01:00:00Z', // the shift (03:00 CEST)
      '2026-03-29T01:15:00Z', // 03:15 CEST
      '2026-03-29T01:30:00Z',
    ]);
  });

  it('02:30 daily in New York on 8 March 2026 fires at the shift, 03:00 EDT', () => {
    expect(next('30 2 * * *', newYork, '2026-03-06T12:00:00Z', 3)).toEqual([
      '2026-03-07T07:30:00Z', // 02:30 EST
      '2026-03-08T07:00:00Z', // the shift: 03:00 EDT
      '2026-03-09T06:30:00Z', // 02:30 EDT
    ]);
  });

  it('maps a skipped wall-clock time to the first instant after the gap', () => {
    expect(iso(instantOf(rome, Date.UTC(2026, 2, 29, 2, 30)))).toBe('2026-03-29T01:00:00Z');
    expect(iso(instantOf(rome, Date.UTC(2026, 2, 29, 1, 59, 59)))).toBe('2026-03-29T00:59:59Z');
  });
});

describe('DST: a local time the zone repeats fires once, the first time', () => {
  it('02:30 daily in Rome on 25 October 2026 (03:00 → 02:00) fires at 02:30 CEST only', () => {
    expect(next('30 2 * * *', rome, '2026-10-23T12:00:00Z', 4)).toEqual([
      '2026-10-24T00:30:00Z', // 02:30 CEST
      '2026-10-25T00:30:00Z', // the first 02:30 (CEST); the second (01:30Z, CET) does not fire
      '2026-10-26T01:30:00Z', // 02:30 CET
      '2026-10-27T01:30:00Z',
    ]);
  });

  it('every 30 minutes across the repeated hour: its times fire in the first pass, none in the second', () => {
    expect(next('*/30 * * * *', rome, '2026-10-24T23:30:00Z', 4)).toEqual([
      '2026-10-25T00:00:00Z', // 02:00 CEST
      '2026-10-25T00:30:00Z', // 02:30 CEST
      '2026-10-25T02:00:00Z', // 03:00 CET: 02:00 and 02:30 CET (01:00Z, 01:30Z) are repeats
      '2026-10-25T02:30:00Z',
    ]);
  });

  it('every second, from inside the second pass: the next occurrence is after the repeated hour', () => {
    const t = nextOccurrence({ cron: '* * * * * *', timezone: rome }, ms('2026-10-25T01:30:00Z'));
    expect(iso(t!)).toBe('2026-10-25T02:00:00Z');
  });

  it('01:30 daily in New York on 1 November 2026 fires at 01:30 EDT only', () => {
    expect(next('30 1 * * *', newYork, '2026-10-31T12:00:00Z', 3)).toEqual([
      '2026-11-01T05:30:00Z', // 01:30 EDT; 01:30 EST (06:30Z) does not fire
      '2026-11-02T06:30:00Z', // 01:30 EST
      '2026-11-03T06:30:00Z',
    ]);
  });
});

describe('missed occurrences', () => {
  const everySecond = { cron: '*/1 * * * * *', timezone: 'UTC' };

  it('finds the latest occurrence at or before now, and counts the ones before it', () => {
    const from = ms('2026-12-01T10:00:00Z');
    expect(iso(latestOccurrence(everySecond, from, ms('2026-12-01T10:00:10.500Z')))).toBe('2026-12-01T10:00:10Z');
    expect(countOccurrences(everySecond, from, ms('2026-12-01T10:00:10Z'))).toBe(10);
    expect(iso(latestOccurrence({ cron: '0 9 * * *', timezone: rome }, ms('2026-11-01T08:00:00Z'), ms('2026-11-30T12:00:00Z')))).toBe(
      '2026-11-30T08:00:00Z',
    );
    expect(countOccurrences({ cron: '0 9 * * *', timezone: rome }, ms('2026-11-01T08:00:00Z'), ms('2026-11-30T08:00:00Z'))).toBe(29);
  });

  it('counts past the cap by the pace of the counted stretch: exact for a fixed period', () => {
    const from = ms('2026-12-01T00:00:00Z');
    const day = 86_400_000;
    expect(countOccurrences(everySecond, from, from + day)).toBe(86_400);
    expect(countOccurrences({ cron: '*/5 * * * * *', timezone: rome }, from, from + day)).toBe(17_280);
    expect(countOccurrences({ cron: '* * * * *', timezone: 'UTC' }, from, from + 30 * day)).toBe(43_200);
  });

  it('answers the first occurrence itself when none came after it', () => {
    const from = ms('2026-12-01T10:00:00Z');
    expect(latestOccurrence(everySecond, from, from + 400)).toBe(from);
  });
});

describe('what the contract accepts', () => {
  const parse = (body: Record<string, unknown>) =>
    scheduleRoutes.put.input.safeParse({ queue: 'q', scheduleKey: 'k', payload: 'aGk=', ...body });

  it('parses five and six fields and nicknames, and refuses anything else naming the field', () => {
    for (const cron of ['0 9 * * *', '*/1 * * * * *', '@daily', '0 0 12 * * MON-FRI']) expect(parse({ cron }).success, cron).toBe(true);
    for (const cron of ['61 * * * *', 'not cron', '* * * *', '0 0 0 1 1 * 2030']) {
      const r = parse({ cron });
      expect(r.success, cron).toBe(false);
      expect(r.error!.issues[0].path, cron).toEqual(['cron']);
    }
    expect(() => cronPattern('61 * * * *')).toThrow();
  });

  it('takes keys by the timer key rules, with at most 1,000 bytes', () => {
    expect(parse({ cron: '@daily', scheduleKey: 'tenant/42' }).success).toBe(true);
    for (const scheduleKey of ['a/../b', './a', 'x'.repeat(1001), 'a\u0001b']) {
      expect(parse({ cron: '@daily', scheduleKey }).error?.issues[0].path, scheduleKey).toEqual(['scheduleKey']);
    }
  });

  it('takes IANA zones and refuses others naming the field', () => {
    expect(parse({ cron: '0 9 * * *', timezone: 'Europe/Rome' }).success).toBe(true);
    const r = parse({ cron: '0 9 * * *', timezone: 'Mars/Olympus' });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0].path).toEqual(['timezone']);
    expect(canonicalZone('europe/rome')).toBe('Europe/Rome');
  });

  it('names an occurrence’s timer and txn by the schedule and the instant', () => {
    expect(occurrenceTimerKey('acme/daily', ms('2026-12-05T08:00:00Z'))).toBe('acme/daily@2026-12-05T08:00:00Z');
    expect(occurrenceTxn('6a1f0c2e-9b4d-4e3a-8c57-2d9e0f1b7a64', ms('2026-12-05T08:00:00Z'))).toBe(
      'schedule:6a1f0c2e-9b4d-4e3a-8c57-2d9e0f1b7a64@2026-12-05T08:00:00Z',
    );
  });
});
