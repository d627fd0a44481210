// The embedded database's folder serves one broker: PGlite has no locking of its own, and two
// brokers on one folder each believe they own it (writes acknowledged by one are lost). The lock
// is a file beside the folder holding the owner's pid, created exclusively; a lock whose process
// is gone (the broker was killed) is taken over.
import { open, readFile, unlink } from 'node:fs/promises';
import { resolve } from 'node:path';

/** Folders locked by this process: a second broker in one process is refused like one in another. */
const held = new Set<string>();

export class FolderInUseError extends Error {}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Locks `folder` for this process; resolves to the release. Throws FolderInUseError naming the owner. */
export async function lockFolder(folder: string): Promise<() => Promise<void>> {
  const path = resolve(folder);
  const lockFile = `${path}.lock`;
  const refuse = (pid: number) =>
    new FolderInUseError(
      `the embedded data folder ${path} is in use by another broker (pid ${pid}); stop it, or set QUEEN_DATA_DIR to another folder` +
        ` (if no broker is running, delete ${lockFile})`,
    );
  if (held.has(path)) throw refuse(process.pid);
  for (let attempt = 0; ; attempt++) {
    try {
      const f = await open(lockFile, 'wx');
      await f.writeFile(`${process.pid}\n`);
      await f.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number((await readFile(lockFile, 'utf8').catch(() => '')).trim());
      // Our own pid in a lock we do not hold: a broker restarted under the same pid (a container).
      const owned = Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid);
      if (owned || attempt > 0) throw refuse(pid);
      await unlink(lockFile).catch(() => {}); // stale: its broker is gone
    }
  }
  held.add(path);
  return async () => {
    held.delete(path);
    await unlink(lockFile).catch(() => {});
  };
}
