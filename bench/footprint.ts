// `npm run bench -- footprint [--minutes=N]`: what production costs on disk and in memory.
//  - install: this commit (git archive HEAD) with the dist/ built here, installed as production
//    installs it (`npm ci --omit=dev --omit=optional`, offline from npm's cache) in a scratch
//    folder: node_modules' size (du), beside the package-lock's full install in this checkout.
//  - rss: that install's embedded broker (`node dist/src/server.js`, no DATABASE_URL) under light
//    load for --minutes (default 5): 20 timers scheduled a second, due 1 s later, popped with
//    autoAck by one consumer; its RSS sampled every 10 s from /proc, beside an idle `node` the same
//    way, summed over the broker's process tree. Targets: install ≤ 150 MB, RSS ≤ 250 MB at every
//    sample (so at the end too). A missed target exits 1 with a line on stderr naming it.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintToken } from '../src/auth.ts';

const INSTALL_TARGET_MB = 150;
const RSS_TARGET_MB = 250;
const SECRET = 'footprint-bench-secret-of-32-characters!';

const duMb = (path: string) => Number(execFileSync('du', ['-sm', path], { encoding: 'utf8' }).split('\t')[0]);
/** VmRSS of one process, in kB (0 once it has exited). */
const rssKb = (pid: number) => {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return line ? Number(line.split(/\s+/)[1]) : 0;
  } catch {
    return 0;
  }
};
/** A process and its descendants (from /proc/<pid>/task/<tid>/children). */
const processTree = (pid: number): number[] => {
  let children: number[] = [];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`))
      children.push(...readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number));
  } catch {
    children = [];
  }
  return [pid, ...children.flatMap(processTree)];
};
/**
 * RSS of a process and every descendant, summed, in MB: the broker's memory includes whatever it
 * starts (the embedded database's initdb runs in a child), so moving work into a child process
 * cannot make the figure smaller. Pages shared between them count once per process (an overcount).
 */
const rssMb = (pid: number) => Math.round(processTree(pid).reduce((sum, p) => sum + rssKb(p), 0) / 1024);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Returns the measures that missed their target (none: both within). */
export async function measureFootprint(o: { minutes: number; emit: (line: object) => void }): Promise<string[]> {
  const missed: string[] = [];
  const root = new URL('..', import.meta.url).pathname;
  const scratch = mkdtempSync(join(tmpdir(), 'qt-footprint-'));
  try {
    execFileSync('sh', ['-c', `git -C "${root}" archive HEAD | tar -x -C "${scratch}"`]);
    cpSync(join(root, 'dist'), join(scratch, 'dist'), { recursive: true });
    execFileSync('npm', ['ci', '--omit=dev', '--omit=optional', '--offline', '--no-audit', '--no-fund'], { cwd: scratch, stdio: 'ignore' });
    const installMb = duMb(join(scratch, 'node_modules'));
    const fullMb = duMb(join(root, 'node_modules'));
    o.emit({
      measure: 'footprint-install',
      command: 'npm ci --omit=dev --omit=optional',
      installMb,
      fullInstallMb: fullMb,
      installOverFull: Math.round((installMb / fullMb) * 100) / 100,
      targetMb: INSTALL_TARGET_MB,
      withinTarget: installMb <= INSTALL_TARGET_MB,
    });
    if (installMb > INSTALL_TARGET_MB) missed.push(`production install ${installMb} MB > ${INSTALL_TARGET_MB} MB`);

    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const broker = spawn(process.execPath, ['dist/src/server.js'], {
      cwd: scratch,
      env: {
        PATH: process.env.PATH,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        QUEEN_JWT_SECRET: SECRET,
        QUEEN_DATA_DIR: join(scratch, '.queen-data'),
      },
      stdio: 'ignore',
    });
    const idle = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      const base = `http://127.0.0.1:${port}`;
      const token = await mintToken(SECRET, { tenant: 'footprint', sub: 'bench', grants: ['produce', 'consume', 'read'] });
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      for (let i = 0; ; i++) {
        if ((await fetch(`${base}/ready`).catch(() => undefined))?.ok) break;
        if (i > 600) throw new Error('the broker did not become ready in 60 s');
        await sleep(100);
      }
      const samples: number[] = [];
      const idleSamples: number[] = [];
      const end = Date.now() + o.minutes * 60_000;
      let nextSample = Date.now();
      let n = 0;
      let popped = 0;
      while (Date.now() < end) {
        const operations = Array.from({ length: 20 }, () => ({
          op: 'schedule',
          queue: 'light',
          timerKey: `t${n++}`,
          delayMs: 1_000,
          payload: 'e30=',
        }));
        const res = await fetch(`${base}/api/v1/timers`, { method: 'POST', headers, body: JSON.stringify({ operations }) });
        if (!res.ok) throw new Error(`schedule answered ${res.status}: ${await res.text()}`);
        const pop = await fetch(`${base}/api/v1/pop/queue/light?batch=100&autoAck=true`, { headers });
        if (pop.status === 200) popped += ((await pop.json()) as { messages: unknown[] }).messages.length;
        if (Date.now() >= nextSample) {
          samples.push(rssMb(broker.pid!));
          idleSamples.push(rssMb(idle.pid!));
          nextSample += 10_000;
        }
        await sleep(1_000);
      }
      const last = samples.at(-1)!;
      const max = Math.max(...samples);
      o.emit({
        measure: 'footprint-rss',
        minutes: o.minutes,
        scheduled: n,
        popped,
        brokerRssFirstMb: samples[0],
        brokerRssMaxMb: max,
        brokerRssLastMb: last,
        idleNodeRssMb: idleSamples.at(-1),
        brokerOverIdleNode: Math.round((last / idleSamples.at(-1)!) * 100) / 100,
        targetMb: RSS_TARGET_MB,
        withinTarget: max <= RSS_TARGET_MB && last <= RSS_TARGET_MB,
      });
      if (max > RSS_TARGET_MB) missed.push(`embedded broker RSS max ${max} MB (last ${last} MB) > ${RSS_TARGET_MB} MB`);
    } finally {
      broker.kill('SIGTERM');
      idle.kill('SIGTERM');
      await new Promise((r) => broker.once('exit', r));
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return missed;
}
