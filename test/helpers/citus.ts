// A Citus cluster on this machine's PostgreSQL 15 binaries: a coordinator and two workers on free
// local ports (initdb as the postgres user, shared_preload_libraries = 'citus', CREATE EXTENSION
// citus in the database the brokers use on every node, the workers added to the coordinator).
// Everything lives in a temporary folder removed by close(). test/citus.test.ts runs a broker on
// the coordinator's database; whyNoCitus() says why the cluster cannot be built here (the test
// then skips, saying so).
import { existsSync } from 'node:fs';
import { appendFile, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { asPostgres, Node, PG_BIN, whyNoCell } from './failover.ts';
import { freePort } from './procs.ts';

/** The database created on every node, where the extension is installed. */
export const CITUS_DATABASE = 'queen';

/** PostgreSQL 15's library folder (where `make install` put citus.so). */
function pgLibDir(): string {
  try {
    return execFileSync(join(PG_BIN, 'pg_config'), ['--pkglibdir'], { encoding: 'utf8' }).trim();
  } catch {
    return '/usr/lib/postgresql/15/lib';
  }
}

/** '' when the cluster can be built here, else why not. */
export function whyNoCitus(): string {
  // Each Citus test builds a cluster of its own, whatever DATABASE_URL names: .ci/run runs them in
  // its first half only, and three clusters beside the second half's load starved its timed tests.
  if (process.env.QUEEN_TEST_SKIP_CITUS) return 'QUEEN_TEST_SKIP_CITUS is set (.ci/run runs the Citus tests in its embedded half)';
  const cell = whyNoCell();
  // The compiled broker is not needed here: the test runs the broker in-process.
  if (cell && !cell.startsWith('needs the compiled broker')) return cell;
  const lib = pgLibDir();
  if (!existsSync(join(lib, 'citus.so'))) {
    return `needs Citus for PostgreSQL 15 (no citus.so in ${lib}; install Citus's postgresql-15-citus package, or build it from source)`;
  }
  if (!existsSync('/usr/share/postgresql/15/extension/citus.control')) return 'needs citus.control in /usr/share/postgresql/15/extension';
  return '';
}

export interface CitusCluster {
  coordinator: Node;
  workers: Node[];
  /** The coordinator's database, with the extension installed: what a broker's DATABASE_URL names. */
  url: string;
  close(): Promise<void>;
}

const settings = (dir: string, port: number) =>
  [
    "listen_addresses = '127.0.0.1'",
    `port = ${port}`,
    `unix_socket_directories = '${dir}'`,
    "shared_preload_libraries = 'citus'",
    // Three servers share the machine's cores with the tests: no fsync, small buffers.
    'fsync = off',
    'shared_buffers = 32MB',
    'max_connections = 200',
    'log_min_messages = warning',
    '',
  ].join('\n');

/** Builds and starts the cluster. On failure what was started is stopped again. */
export async function startCitus(o: { workers?: number } = {}): Promise<CitusCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'queen-citus-'));
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  await chown(dir, uid, gid);
  const nodes: Node[] = [];
  for (const name of ['coordinator', ...Array.from({ length: o.workers ?? 2 }, (_, i) => `worker${i + 1}`)]) {
    nodes.push(new Node(name, join(dir, name), await freePort()));
  }
  const [coordinator, ...workers] = nodes;
  const started: Node[] = [];
  const cluster: CitusCluster = {
    coordinator,
    workers,
    url: `postgresql://postgres@127.0.0.1:${coordinator.port}/${CITUS_DATABASE}`,
    async close() {
      for (const n of started) await n.stop('immediate').catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await Promise.all(
      nodes.map(async (n) => {
        await asPostgres('initdb', ['-D', n.dir, '-U', 'postgres', '-A', 'trust', '--no-sync']);
        await appendFile(join(n.dir, 'postgresql.conf'), settings(dir, n.port));
      }),
    );
    for (const n of nodes) {
      await n.start();
      started.push(n);
      await n.query(`CREATE DATABASE ${CITUS_DATABASE}`);
      await n.query('CREATE EXTENSION citus', CITUS_DATABASE);
    }
    await coordinator.query(`SELECT citus_set_coordinator_host('127.0.0.1', ${coordinator.port})`, CITUS_DATABASE);
    for (const w of workers) await coordinator.query(`SELECT citus_add_node('127.0.0.1', ${w.port})`, CITUS_DATABASE);
    return cluster;
  } catch (err) {
    await cluster.close();
    throw err;
  }
}
