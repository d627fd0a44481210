// Brokers as separate processes (src/server.ts), for tests that kill one with SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SECRET } from './broker.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface BrokerProcess {
  proc: ChildProcess;
  /** Resolves with the exit code (or signal) once the process is gone. */
  exited: Promise<number | string | null>;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<number | string | null>;
}

export function spawnBroker(databaseUrl: string, env: Record<string, string> = {}): BrokerProcess {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      QUEEN_JWT_SECRET: SECRET,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | string | null>((resolve) => proc.on('exit', (code, sig) => resolve(code ?? sig)));
  return {
    proc,
    exited,
    output: () => out,
    async kill(signal = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}
