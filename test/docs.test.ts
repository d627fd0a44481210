// The docs print what they say. Every generated block of README.md and docs/*.md is what
// `npm run docs` renders now: the tables from src/config.ts, src/errors.ts and openapi.json exactly,
// and the tour's commands run here against a broker, with ids and instants masked. Links between
// the docs reach a file and heading that exist, and nothing names a path outside the repository.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '../src/errors.ts';
import { blocksIn, configVariables, docFiles, mask, renderLive, renderStatic, ROOT } from '../scripts/docs.ts';
import { startTestBroker, type TestBroker } from './helpers/broker.ts';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const files = docFiles();

/** GitHub's anchor for a heading. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

const withoutFences = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');
const anchorsOf = (file: string) => new Set([...withoutFences(read(file)).matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));

describe('generated blocks', () => {
  const staticBlocks = renderStatic();

  it('every block names a rendering npm run docs knows, and the static ones are as rendered (run `npm run docs` when this fails)', () => {
    let seen = 0;
    for (const file of files) {
      for (const { name, content } of blocksIn(read(file))) {
        expect(name.startsWith('run:') || name.startsWith('output:') || staticBlocks.has(name), `${file}: unknown block ${name}`).toBe(
          true,
        );
        if (staticBlocks.has(name)) {
          seen++;
          expect(content, `${file}: block ${name} is stale`).toBe(staticBlocks.get(name));
        }
      }
    }
    expect(seen).toBeGreaterThanOrEqual(staticBlocks.size);
  });

  describe('the tour and example outputs, run against a broker', () => {
    let tb: TestBroker;
    let live: Map<string, string>;
    beforeAll(async () => {
      tb = await startTestBroker({ listen: true, sweeper: true });
      const token = await tb.token({ tenant: 'dev', sub: 'dev', grants: ['produce', 'consume', 'read'] });
      live = await renderLive({ url: tb.url, token });
    }, 120_000);
    afterAll(() => tb?.close());

    it('prints what each file shows, ids and instants aside (run `npm run docs` when this fails)', () => {
      const shown = new Set<string>();
      for (const file of files) {
        for (const { name, content } of blocksIn(read(file))) {
          if (!name.startsWith('run:') && !name.startsWith('output:')) continue;
          expect(live.has(name), `${file}: no step renders ${name}`).toBe(true);
          expect(mask(content), `${file}: block ${name} differs from what the command prints now`).toBe(mask(live.get(name)!));
          shown.add(name);
        }
      }
      // Every step is shown somewhere: a step no doc shows is a command nobody reads.
      expect([...live.keys()].filter((k) => !shown.has(k))).toEqual([]);
    });
  });
});

describe('links and references', () => {
  it('every relative link in README.md and docs/ reaches a file, and a heading when it names one', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const m of withoutFences(read(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target)) continue;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const resolved = path ? normalize(join(dirname(file), path)) : file;
        if (resolved.startsWith('..') || !existsSync(join(ROOT, resolved))) {
          broken.push(`${file}: ${target} (no file ${resolved})`);
          continue;
        }
        if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
          broken.push(`${file}: ${target} (no heading #${anchor})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('no tracked file names the folder beside the repository', () => {
    const outside = '..' + '/shared';
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
    const naming = tracked.filter((f) => existsSync(join(ROOT, f)) && read(f).includes(outside));
    expect(naming).toEqual([]);
  });

  it('the README is a front door: at most 300 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(300);
  });

  it('"session" in the docs means a database session only', () => {
    const lines = files.flatMap((f) =>
      read(f)
        .split('\n')
        .filter((l) => /session/i.test(l.replace(/database[ -]session|session advisory lock/gi, '')))
        .map((l) => `${f}: ${l}`),
    );
    expect(lines).toEqual([]);
  });

  it('docs/operations.md names every variable src/config.ts reads', () => {
    const ops = read('docs/operations.md');
    expect(configVariables().filter((v) => !ops.includes(`\`${v}\``))).toEqual([]);
  });

  it('docs/api.md names every error code of src/errors.ts', () => {
    const api = read('docs/api.md');
    expect(Object.keys(ERRORS).filter((c) => !api.includes(`\`${c}\``))).toEqual([]);
  });
});
