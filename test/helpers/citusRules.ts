// What makes a statement wrong on a Citus cluster whose tenant-keyed tables are distributed by
// tenant, checked on its parse tree (libpg-query: PostgreSQL's own parser, compiled to WASM). The
// rules, each seen on Citus 13.2.2 (test/citus.test.ts runs the statements themselves):
//  - lock: a FOR UPDATE/SHARE of a tenant-keyed table, or an UPDATE, DELETE or INSERT … ON CONFLICT
//    DO UPDATE of one, without the tenant: Citus runs FOR UPDATE only on one shard, and a write
//    that names no tenant visits every shard;
//  - volatile: a volatile function (clock_timestamp(), gen_random_uuid(), random(), …) in an UPDATE
//    or DELETE (its SET or WHERE), or a clock at all (now() included) in ON CONFLICT DO UPDATE's SET
//    or WHERE: Citus refuses them ("functions used in UPDATE queries on distributed tables must not
//    be VOLATILE", "functions used in the WHERE/ON/WHEN clause of modification queries … must not be
//    VOLATILE", "functions used in the DO UPDATE SET clause of INSERTs … must be marked IMMUTABLE",
//    and the same of the ON CONFLICT's WHERE clause); now() in an UPDATE's SET or WHERE is accepted
//    (stable: evaluated once, on the coordinator);
//  - ctid: a row's ctid is per shard, so a lookup by ctid names the tenant beside it;
//  - unique: a unique index or constraint of a tenant-keyed table includes tenant (Citus refuses to
//    distribute a table with one that does not).
import { loadModule, parseSync } from 'libpg-query';

export type Rule = 'lock' | 'volatile' | 'ctid' | 'unique';
export interface Violation {
  rule: Rule;
  detail: string;
}

type N = Record<string, any>;

let loaded: Promise<void> | undefined;
export const loadParser = () => (loaded ??= loadModule());

/** The parse tree's statements (throws the parser's error on text that is not SQL). */
export const parse = (text: string): N[] => (parseSync(text).stmts ?? []).map((s: N) => s.stmt);

const VOLATILE = new Set(['clock_timestamp', 'gen_random_uuid', 'random', 'timeofday', 'nextval', 'uuid_generate_v4', 'setseed']);
const STABLE_CLOCK = new Set(['now', 'statement_timestamp', 'transaction_timestamp']);

/** Calls every object node of a tree, depth first; `visit` returns false to skip a node's children. */
function walk(node: unknown, visit: (type: string, body: N) => boolean | void): void {
  if (Array.isArray(node)) {
    for (const x of node) walk(x, visit);
    return;
  }
  if (!node || typeof node !== 'object') return;
  for (const [k, v] of Object.entries(node as N)) {
    if (/^[A-Z]/.test(k) && v && typeof v === 'object' && !Array.isArray(v)) {
      if (visit(k, v) === false) continue;
    }
    walk(v, visit);
  }
}

const columnRef = (n: N | undefined): string[] | undefined =>
  n?.ColumnRef ? n.ColumnRef.fields.map((f: N) => f.String?.sval ?? '*') : undefined;

/** Does `expr` hold `<alias>.tenant` (or a bare tenant) somewhere outside a subquery? */
function mentionsTenant(expr: unknown, alias: string): boolean {
  let found = false;
  walk(expr, (type, body) => {
    if (type === 'SelectStmt') return false;
    if (type === 'ColumnRef') {
      const f = columnRef({ ColumnRef: body })!;
      if (f[f.length - 1] === 'tenant' && (f.length === 1 || f[f.length - 2] === alias)) found = true;
    }
  });
  return found;
}

/** Is the expression the same for every row: parameters and constants, no column, no subquery? */
function fixed(expr: unknown): boolean {
  let ok = true;
  walk(expr, (type) => {
    if (type === 'ColumnRef' || type === 'SubLink' || type === 'SelectStmt') ok = false;
  });
  return ok;
}

/**
 * Does the condition pin `alias` to given tenants: `tenant = $1`, `tenant = ANY($1)`, `tenant IN
 * ($1, $2)` or `(tenant, …) = ($1, …)` among the conditions (not inside an OR, but for the
 * sweeper's `$n IS NULL OR tenant = ANY ($n)`)? A join on tenant
 * (`x.tenant = y.tenant`) does not: it names no shard.
 */
function filtersTenant(cond: N | undefined, alias: string): boolean {
  if (!cond) return false;
  // The sweeper's pin (src/sweeper/shardGroups.ts tenantPin): `$n IS NULL OR tenant = ANY ($n)`,
  // the tenants of one shard group on Citus (Citus binds $n before it plans), null on plain
  // PostgreSQL, where the sweeper takes every tenant at once.
  if (cond.BoolExpr?.boolop === 'OR_EXPR' && cond.BoolExpr.args.length === 2) {
    const nullParam = (n: N) => n.NullTest?.nulltesttype === 'IS_NULL' && fixed(n.NullTest.arg);
    const [a, b] = cond.BoolExpr.args;
    return (nullParam(a) && filtersTenant(b, alias)) || (nullParam(b) && filtersTenant(a, alias));
  }
  if (cond.BoolExpr) return cond.BoolExpr.boolop === 'AND_EXPR' && cond.BoolExpr.args.some((a: N) => filtersTenant(a, alias));
  if (cond.A_Expr) {
    const e = cond.A_Expr;
    const op = e.name?.[0]?.String?.sval;
    if (!['AEXPR_OP', 'AEXPR_OP_ANY', 'AEXPR_IN'].includes(e.kind) || op !== '=') return false;
    return (mentionsTenant(e.lexpr, alias) && fixed(e.rexpr)) || (mentionsTenant(e.rexpr, alias) && fixed(e.lexpr));
  }
  return false;
}

/** The tables of a FROM list with their aliases, and the join conditions among them. */
function fromTables(from: N[] | undefined): { tables: { name: string; alias: string }[]; quals: N[] } {
  const tables: { name: string; alias: string }[] = [];
  const quals: N[] = [];
  const add = (n: N) => {
    if (n.RangeVar) tables.push({ name: n.RangeVar.relname, alias: n.RangeVar.alias?.aliasname ?? n.RangeVar.relname });
    else if (n.JoinExpr) {
      add(n.JoinExpr.larg);
      add(n.JoinExpr.rarg);
      if (n.JoinExpr.quals) quals.push(n.JoinExpr.quals);
    }
  };
  for (const n of from ?? []) add(n);
  return { tables, quals };
}

const pinned = (alias: string, conds: (N | undefined)[]) => conds.some((c) => filtersTenant(c, alias));

function hasClock(expr: unknown, names: Set<string>, svf: boolean): string | undefined {
  let hit: string | undefined;
  walk(expr, (type, body) => {
    if (type === 'FuncCall') {
      const name = body.funcname[body.funcname.length - 1].String.sval;
      if (names.has(name)) hit ??= `${name}()`;
    }
    if (type === 'SQLValueFunction' && svf && /TIMESTAMP|TIME$|DATE/.test(body.op)) hit ??= body.op.replace('SVFOP_', '');
  });
  return hit;
}

/** The violations of one parsed statement (and of every statement nested in it). */
export function violations(stmt: N, tenantKeyed: Set<string>): Violation[] {
  const out: Violation[] = [];
  const ctidCheck = (where: (N | undefined)[], what: string) => {
    for (const cond of where) {
      walk(cond, (type, body) => {
        if (type === 'SelectStmt') return false;
        if (type !== 'ColumnRef') return;
        const f = columnRef({ ColumnRef: body })!;
        if (f[f.length - 1] !== 'ctid') return;
        const alias = f.length > 1 ? f[f.length - 2] : '';
        if (!where.some((c) => filtersTenant(c, alias))) out.push({ rule: 'ctid', detail: `${what}: ctid without the tenant beside it` });
      });
    }
  };
  walk(stmt, (type, s) => {
    if (type === 'SelectStmt') {
      const { tables, quals } = fromTables(s.fromClause);
      const conds = [s.whereClause, ...quals];
      ctidCheck(conds, 'SELECT');
      for (const lc of s.lockingClause ?? []) {
        const locked = (lc.LockingClause.lockedRels ?? []).map((r: N) => r.RangeVar.relname);
        for (const t of tables) {
          if (!tenantKeyed.has(t.name) || (locked.length && !locked.includes(t.alias))) continue;
          if (!pinned(t.alias, conds))
            out.push({ rule: 'lock', detail: `FOR ${lc.LockingClause.strength} of ${t.name} without a tenant filter` });
        }
      }
    } else if (type === 'UpdateStmt' || type === 'DeleteStmt') {
      const name = s.relation.relname;
      const alias = s.relation.alias?.aliasname ?? name;
      const { quals } = fromTables(type === 'UpdateStmt' ? s.fromClause : s.usingClause);
      const conds = [s.whereClause, ...quals];
      ctidCheck(conds, type === 'UpdateStmt' ? 'UPDATE' : 'DELETE');
      if (tenantKeyed.has(name) && !pinned(alias, conds)) {
        out.push({ rule: 'lock', detail: `${type === 'UpdateStmt' ? 'UPDATE' : 'DELETE'} of ${name} without a tenant filter` });
      }
      const f = hasClock([s.targetList, s.whereClause], VOLATILE, false);
      if (f) out.push({ rule: 'volatile', detail: `${f} in ${type === 'UpdateStmt' ? 'UPDATE' : 'DELETE'} ${name}` });
    } else if (type === 'InsertStmt' && s.onConflictClause?.action === 'ONCONFLICT_UPDATE') {
      const name = s.relation.relname;
      const cols: string[] | undefined = s.cols?.map((c: N) => c.ResTarget.name);
      if (tenantKeyed.has(name) && cols && !cols.includes('tenant')) {
        out.push({ rule: 'lock', detail: `INSERT … ON CONFLICT DO UPDATE of ${name} without the tenant column` });
      }
      const clock = new Set([...VOLATILE, ...STABLE_CLOCK]);
      const set = hasClock(s.onConflictClause.targetList, clock, true);
      if (set) out.push({ rule: 'volatile', detail: `${set} in ON CONFLICT DO UPDATE SET of ${name}` });
      const where = hasClock(s.onConflictClause.whereClause, clock, true);
      if (where) out.push({ rule: 'volatile', detail: `${where} in ON CONFLICT DO UPDATE … WHERE of ${name}` });
    }
  });
  return out;
}

/** The tables that have a tenant column, from the migrations' CREATE TABLEs. */
export function tenantKeyedTables(migrations: N[]): Set<string> {
  const out = new Set<string>();
  for (const st of migrations) {
    if (st.CreateStmt?.tableElts?.some((e: N) => e.ColumnDef?.colname === 'tenant')) out.add(st.CreateStmt.relation.relname);
  }
  return out;
}

/**
 * The unique indexes and constraints left after every migration, by name (PostgreSQL's default
 * names for the unnamed ones), that lack tenant on a tenant-keyed table, with the migration that made
 * each. A later DROP INDEX or DROP CONSTRAINT forgets one.
 */
export function uniqueWithoutTenant(migrations: { name: string; stmts: N[] }[], tenantKeyed: Set<string>): Map<string, string> {
  const live = new Map<string, string>();
  for (const m of migrations) {
    for (const st of m.stmts) {
      const add = (table: string, conname: string | undefined, keys: string[], kind: 'key' | 'pkey') => {
        if (!tenantKeyed.has(table) || keys.includes('tenant')) return;
        const name = conname ?? (kind === 'pkey' ? `${table}_pkey` : `${table}_${keys.join('_')}_key`);
        live.set(name, `${m.name}: unique (${keys.join(', ')}) on ${table} without tenant`);
      };
      const constraint = (table: string, c: N, column?: string) => {
        if (c.contype !== 'CONSTR_UNIQUE' && c.contype !== 'CONSTR_PRIMARY') return;
        const keys = column ? [column] : c.keys.map((k: N) => k.String.sval);
        add(table, c.conname, keys, c.contype === 'CONSTR_PRIMARY' ? 'pkey' : 'key');
      };
      if (st.IndexStmt?.unique) {
        const keys = st.IndexStmt.indexParams.map((p: N) => p.IndexElem.name ?? '(expression)');
        add(st.IndexStmt.relation.relname, st.IndexStmt.idxname, keys, 'key');
      } else if (st.CreateStmt) {
        const table = st.CreateStmt.relation.relname;
        for (const e of st.CreateStmt.tableElts ?? []) {
          if (e.Constraint) constraint(table, e.Constraint);
          for (const c of e.ColumnDef?.constraints ?? []) constraint(table, c.Constraint, e.ColumnDef.colname);
        }
      } else if (st.AlterTableStmt) {
        for (const { AlterTableCmd: cmd } of st.AlterTableStmt.cmds) {
          if (cmd.subtype === 'AT_AddConstraint') constraint(st.AlterTableStmt.relation.relname, cmd.def.Constraint);
          if (cmd.subtype === 'AT_DropConstraint') live.delete(cmd.name);
        }
      } else if (st.DropStmt?.removeType === 'OBJECT_INDEX') {
        for (const o of st.DropStmt.objects) live.delete(o.List.items[o.List.items.length - 1].String.sval);
      }
    }
  }
  return live;
}
