// The SQL is Citus-legal: every statement constant of src/ and every migration, parsed by
// PostgreSQL's own parser (libpg-query), is checked against the rules of test/helpers/citusRules.ts
// (a lock or write of a tenant-keyed table names its tenant; no volatile function where Citus
// refuses one; ctid only beside the tenant; unique indexes include tenant). What still breaks a
// rule is listed below, each violation with why it is not fixed yet; an entry that no longer
// violates fails the test too, so that the list only shrinks, and honestly. No database: the
// parser runs in WASM, the statements are read from the sources (test/helpers/sqlText.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import { loadParser, parse, tenantKeyedTables, uniqueWithoutTenant, violations } from './helpers/citusRules.ts';
import { migrationTexts, sqlConstants, type SqlConstant } from './helpers/sqlText.ts';
import { ALL_TENANTS, pinOf } from '../src/sweeper/shardGroups.ts';

const MATERIALIZER =
  "the schedules' materializer claims the due occurrences across tenants: on Citus it needs a claim per shard group, as the timers' claim has";

const RETENTION =
  'the retention pass claims the partitions due across tenants, oldest visit first: on Citus it needs a pass per shard group';

/** `<statement> — <violation>` → why it is not fixed yet. */
const NOT_YET: Record<string, string> = {
  'src/maintenance/fireHistory.ts:PRUNE_SQL — ctid: DELETE: ctid without the tenant beside it':
    'the fire-lag history prune is one cross-tenant batch by ctid; on Citus it needs a prune per tenant or shard',
  'src/maintenance/fireHistory.ts:PRUNE_SQL — lock: DELETE of fire_lag_minutes without a tenant filter':
    'the fire-lag history prune is one cross-tenant batch by ctid; on Citus it needs a prune per tenant or shard',
  'src/maintenance/retention.ts:CLAIM_PARTITIONS_SQL — lock: FOR LCS_FORUPDATE of partitions without a tenant filter': RETENTION,
  'src/maintenance/retention.ts:CLAIM_PARTITIONS_SQL — lock: UPDATE of partitions without a tenant filter': RETENTION,
  'src/sweeper/materializeDue.ts:CLAIM_SQL — lock: FOR LCS_FORUPDATE of schedules without a tenant filter': MATERIALIZER,
  'src/sweeper/materializeDue.ts:WITHDRAW_MISSED_SQL — lock: DELETE of timers without a tenant filter': MATERIALIZER,
  'src/sweeper/materializeDue.ts:MATERIALIZE_SQL — lock: UPDATE of schedules without a tenant filter': MATERIALIZER,
  'src/sweeper/materializeDue.ts:DEFER_SQL — lock: UPDATE of schedules without a tenant filter': MATERIALIZER,
  'src/sweeper/releaseClaims.ts:RELEASE_CLAIMS_SQL — lock: UPDATE of timers without a tenant filter':
    "a write to every shard on purpose, and rare (a stop, a claim whose answer was lost, an operator's pause): it clears claims by token wherever they are; Citus runs it on every shard",
};

/**
 * Migrations that ran before any table was distributed: src/db/citus.ts distributes after the
 * migrations, and these predate it, so their one-off backfills never meet a distributed table.
 */
const BEFORE_DISTRIBUTION: Record<string, string> = {
  'prisma/migrations/20261201000000_log_cursors/migration.sql — lock: UPDATE of partition_consumers without a tenant filter':
    'a one-off backfill of every row, before the tables are distributed',
  'prisma/migrations/20261201000000_log_cursors/migration.sql — lock: UPDATE of partitions without a tenant filter':
    'a one-off backfill of every row, before the tables are distributed',
  'prisma/migrations/20261203000000_ack_as_commit/migration.sql — lock: UPDATE of partition_consumers without a tenant filter':
    'a one-off backfill of every row, before the tables are distributed',
  'prisma/migrations/20261203000000_ack_as_commit/migration.sql — lock: DELETE of message_deliveries without a tenant filter':
    'a one-off cleanup of every row, before the tables are distributed',
};
/** The last migration of BEFORE_DISTRIBUTION's era: a later one runs on distributed tables. */
const LAST_MIGRATION_BEFORE_DISTRIBUTION = '20261209300000';

/** Constants that are the head of a statement, completed where they are used (and checked there). */
const FRAGMENTS: Record<string, string> = {
  'src/services/log/deadLetterInsert.ts:INSERT_DEAD_LETTERS': 'INSERT INTO dead_letters (…): each user adds its SELECT',
};

let constants: SqlConstant[];
let migrations: SqlConstant[];
let keyed: Set<string>;
beforeAll(async () => {
  await loadParser();
  const found = await sqlConstants();
  expect(found.unevaluated, 'SQL constants whose text test/helpers/sqlText.ts could not evaluate').toEqual([]);
  constants = found.constants;
  migrations = await migrationTexts();
  keyed = tenantKeyedTables(migrations.flatMap((m) => parse(m.text)));
});

describe('the rules catch what Citus refuses', () => {
  const check = (sql: string) => parse(sql).flatMap((s) => violations(s, new Set(['timers'])).map((v) => v.rule));
  it.each([
    ['SELECT * FROM timers WHERE deliver_at <= now() LIMIT 10 FOR UPDATE SKIP LOCKED', ['lock']],
    ['SELECT * FROM timers t WHERE t.tenant = $1 AND t.deliver_at <= now() FOR UPDATE SKIP LOCKED', []],
    ['SELECT * FROM timers t WHERE t.tenant = ANY($1) FOR UPDATE', []],
    ['SELECT * FROM timers t WHERE t.tenant = $1 OR t.queue = $2 FOR UPDATE', ['lock']],
    ['WITH c AS (SELECT 1) UPDATE timers SET attempts = attempts + 1 WHERE queue = $1', ['lock']],
    ['UPDATE timers SET claim_token = gen_random_uuid() WHERE tenant = $1', ['volatile']],
    ['UPDATE timers SET updated_at = now() WHERE tenant = $1', []],
    ['DELETE FROM timers WHERE tenant = $1 AND deliver_at < clock_timestamp()', ['volatile']],
    ['INSERT INTO timers (tenant, k) VALUES ($1, $2) ON CONFLICT (tenant, k) DO UPDATE SET at = now()', ['volatile']],
    ['INSERT INTO timers (tenant, k) VALUES ($1, $2) ON CONFLICT (tenant, k) DO UPDATE SET at = EXCLUDED.at', []],
    ['INSERT INTO timers (k) VALUES ($2) ON CONFLICT (k) DO UPDATE SET at = EXCLUDED.at', ['lock']],
    ['DELETE FROM timers t WHERE t.ctid = ANY($1::tid[])', ['ctid', 'lock']],
    ['DELETE FROM timers t WHERE t.tenant = $1 AND t.ctid = ANY($2::tid[])', []],
  ])('%s → %j', (sql, rules) => {
    expect(check(sql)).toEqual(rules);
  });

  it('a unique index without tenant, and its later drop', () => {
    const m = (name: string, sql: string) => ({ name, stmts: parse(sql) });
    const t = new Set(['partitions']);
    const made = m(
      'a',
      'CREATE TABLE partitions (tenant text, id uuid, PRIMARY KEY (tenant, id)); CREATE UNIQUE INDEX p_id ON partitions (id)',
    );
    expect([...uniqueWithoutTenant([made], t).keys()]).toEqual(['p_id']);
    expect([...uniqueWithoutTenant([made, m('b', 'DROP INDEX p_id')], t).keys()]).toEqual([]);
    expect([...uniqueWithoutTenant([m('c', 'ALTER TABLE partitions ADD CONSTRAINT k UNIQUE (id)')], t).keys()]).toEqual(['k']);
  });
});

describe("the project's SQL", () => {
  it('finds the statements: the hot ones among them', () => {
    const names = constants.map((c) => c.name);
    for (const n of [
      'src/services/timers/apply.ts:UPSERT_SQL',
      'src/services/log/pop.ts:READ_AND_LEASE_SQL',
      'src/sweeper/claimDue.ts:CLAIM_DUE_SQL',
    ]) {
      expect(names).toContain(n);
    }
    expect(migrations.length).toBeGreaterThan(10);
  });

  it('every statement parses', () => {
    const failed: string[] = [];
    for (const c of [...constants, ...migrations]) {
      if (FRAGMENTS[c.name]) continue;
      try {
        parse(c.text);
      } catch (err) {
        failed.push(`${c.name}: ${(err as Error).message}`);
      }
    }
    expect(failed).toEqual([]);
  });

  it('breaks no rule but those listed (NOT_YET, BEFORE_DISTRIBUTION), and every listed one still does', () => {
    const seen: string[] = [];
    for (const c of [...constants, ...migrations]) {
      if (FRAGMENTS[c.name]) continue;
      const found = new Set(parse(c.text).flatMap((s) => violations(s, keyed).map((v) => `${c.name} — ${v.rule}: ${v.detail}`)));
      seen.push(...found);
    }
    const schema = migrations.map((m) => ({ name: m.name, stmts: parse(m.text) }));
    for (const detail of uniqueWithoutTenant(schema, keyed).values())
      seen.push(`prisma/migrations (the schema after all of them) — unique: ${detail}`);

    const unlisted = seen.filter((s) => !(s in NOT_YET) && !(s in BEFORE_DISTRIBUTION));
    expect(unlisted, 'statements that break a Citus rule: fix them, or list them in NOT_YET with why').toEqual([]);
    const fixed = [...Object.keys(NOT_YET), ...Object.keys(BEFORE_DISTRIBUTION)].filter((k) => !seen.includes(k));
    expect(fixed, 'listed violations that no longer happen: remove them from the list').toEqual([]);
    const late = Object.keys(BEFORE_DISTRIBUTION).filter((k) => k.split('/')[2].slice(0, 14) > LAST_MIGRATION_BEFORE_DISTRIBUTION);
    expect(late, 'a migration after the tables are distributed must obey the rules').toEqual([]);
  });
});

// On plain PostgreSQL the sweeper's pins must be null: a tenant list beside a batch's ctids made
// PostgreSQL find the rows by the tenant's index (fire 0.87x), and a fire's thousand tenants beside
// each key of the append's locks made a thousand index probes per key (docs/benchmarks.md). No plan
// of those statements changes with one tenant, so these are checked where they are decided.
describe("the sweeper's pins", () => {
  it('are null on plain PostgreSQL (no shard group), and one shard group’s distinct tenants on Citus', () => {
    expect(ALL_TENANTS.tenants).toBeNull();
    expect(
      pinOf([
        { tenant: 'a', shard: null },
        { tenant: 'b', shard: null },
      ]),
    ).toBeNull();
    expect(
      pinOf([
        { tenant: 'a', shard: '102008' },
        { tenant: 'b', shard: '102008' },
        { tenant: 'a', shard: '102008' },
      ]),
    ).toEqual(['a', 'b']);
    expect(pinOf([])).toBeNull();
  });
});
