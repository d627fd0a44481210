// The shape of src/, as the redesign left it: domain code (services, sweeper, plans, maintenance,
// db) never imports the transport (routers, tRPC, HTTP, the app), the request context or Fastify's
// types; no import cycle; one INSERT per table for messages, dead_letters and usage_meter; every
// shared rule in its home; no module grows past ~400 lines unless it says at its top why it is one
// thing.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'generated' ? [] : sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

const files = sourceFiles(SRC);
const rel = (abs: string) => relative(SRC, abs).split('\\').join('/');
const text = new Map(files.map((f) => [rel(f), readFileSync(f, 'utf8')]));

/** Relative imports of a module (static `import`/`export … from` and dynamic `import()`), as src paths. */
function importsOf(file: string): string[] {
  const out: string[] = [];
  for (const m of text.get(file)!.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
    out.push(rel(resolve(dirname(join(SRC, file)), m[1])));
  }
  return out.filter((p) => text.has(p));
}

const graph = new Map([...text.keys()].map((f) => [f, importsOf(f)]));

describe('src/ layering', () => {
  const domain = [...graph.keys()].filter((f) => /^(services|sweeper|plans|maintenance|db)\//.test(f));
  const transport = (p: string) => p.startsWith('routers/') || p.startsWith('http/') || p === 'trpc.ts' || p === 'app.ts';

  it('finds the domain modules it checks', () => {
    expect(domain).toEqual(
      expect.arrayContaining(['services/log/append.ts', 'sweeper/index.ts', 'db/transaction.ts', 'plans/gates.ts', 'maintenance/loop.ts']),
    );
  });

  it('no domain module imports routers/, trpc.ts, http/ or app.ts', () => {
    const offending = domain.flatMap((f) =>
      graph
        .get(f)!
        .filter(transport)
        .map((p) => `${f} → ${p}`),
    );
    expect(offending).toEqual([]);
  });

  it('no domain module imports the request context (context.ts) or Fastify', () => {
    const offending = domain.flatMap((f) => [
      ...graph
        .get(f)!
        .filter((p) => p === 'context.ts')
        .map((p) => `${f} → ${p}`),
      ...[...text.get(f)!.matchAll(/(?:from|import)\s*\(?\s*'(fastify[^']*|@fastify\/[^']*)'/g)].map((m) => `${f} → ${m[1]}`),
    ]);
    expect(offending).toEqual([]);
  });

  it('the contract imports nothing of the service but itself', () => {
    const offending = [...graph.keys()]
      .filter((f) => f.startsWith('contract/'))
      .flatMap((f) =>
        graph
          .get(f)!
          .filter((p) => !p.startsWith('contract/'))
          .map((p) => `${f} → ${p}`),
      );
    expect(offending).toEqual([]);
  });

  it('has no import cycle', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (f: string) => {
      state.set(f, 'open');
      stack.push(f);
      for (const next of graph.get(f)!) {
        if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].join(' → '));
        else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(f, 'done');
    };
    for (const f of graph.keys()) if (!state.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });
});

describe('src/ single ways', () => {
  const insertsInto = (table: string) =>
    [...text].flatMap(([f, src]) => [...src.matchAll(new RegExp(`INSERT\\s+INTO\\s+${table}\\b`, 'gi'))].map(() => f));

  it('inserts into messages in exactly one place: services/log/append.ts', () => {
    expect(insertsInto('messages')).toEqual(['services/log/append.ts']);
  });

  it('inserts into dead_letters in exactly one place: services/log/deadLetterInsert.ts', () => {
    expect(insertsInto('dead_letters')).toEqual(['services/log/deadLetterInsert.ts']);
  });

  it('upserts the usage meter in exactly one place: plans/meter.ts', () => {
    expect(insertsInto('usage_meter')).toEqual(['plans/meter.ts']);
  });

  it('spells "claimed" (a claim_expires_at or claim_token test) only in sweeper/claimed.ts', () => {
    const places = [...text].filter(([, src]) => /claim_expires_at\s*(?:<=|>=|<|>|IS\s)|claim_token\s+IS\s/i.test(src)).map(([f]) => f);
    expect(places).toEqual(['sweeper/claimed.ts']);
  });

  it('defines planner settings only in db/plannerSettings.ts', () => {
    const places = [...text].filter(([, src]) => /\benable_seqscan\b/.test(src)).map(([f]) => f);
    expect(places).toEqual(['db/plannerSettings.ts']);
  });

  it('runs every background duty of maintenance/ on the one loop (maintenance/loop.ts)', () => {
    const duties = [...graph.keys()].filter((f) => f.startsWith('maintenance/') && f !== 'maintenance/loop.ts');
    expect(duties).toEqual(
      expect.arrayContaining([
        'maintenance/retention.ts',
        'maintenance/queueGauges.ts',
        'maintenance/pendingGauge.ts',
        'maintenance/vacuum.ts',
      ]),
    );
    expect(duties.filter((f) => !graph.get(f)!.includes('maintenance/loop.ts'))).toEqual([]);
    expect(duties.filter((f) => /\bset(Interval|Timeout)\(/.test(text.get(f)!))).toEqual([]);
    expect(graph.get('broker.ts')).toContain('maintenance/loop.ts');
  });

  it('keeps the plan and its gates in plans/, where every produce path finds them', () => {
    expect([...graph.keys()].filter((f) => f.startsWith('plans/')).sort()).toEqual(
      expect.arrayContaining(['plans/gates.ts', 'plans/meter.ts', 'plans/pendingCounts.ts', 'plans/tenants.ts']),
    );
  });

  it('opens transactions only through db/transaction.ts (no BEGIN elsewhere, no Prisma $transaction)', () => {
    const places = [...text]
      .filter(([f, src]) => f !== 'db/transaction.ts' && f !== 'db/migrate.ts' && /'BEGIN|\$transaction\(/.test(src))
      .map(([f]) => f);
    expect(places).toEqual([]);
  });
});

describe('src/ module size', () => {
  it('keeps modules under ~400 lines unless their header says why they are one thing', () => {
    const long = [...text]
      .filter(([, src]) => src.split('\n').length > 420)
      .filter(([, src]) => !/^\/\/ One cohesive thing:/m.test(src.split('\n').slice(0, 30).join('\n')))
      .map(([f, src]) => `${f}: ${src.split('\n').length} lines`);
    expect(long).toEqual([]);
  });
});
