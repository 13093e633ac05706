// The benchmark's safety net, started by bench/lib.ts as a separate, detached process.
//
// The benchmark removes its database, Redis keys and storage folder itself, on success, failure
// and Ctrl-C. But it can be killed without a chance to do so: tsx, which relays Ctrl-C to it,
// SIGKILLs it when it does not acknowledge the signal within 30 ms, which happens while the
// OpenAPI workers keep its event loop busy. So this process waits until the benchmark process is
// gone, however it ended (its end of our stdin pipe closes), then removes whatever is left.
// After a clean run there is nothing left and it exits silently.
//
// Usage (internal): node --import tsx bench/janitor.ts <suffix>
import { benchNames, deleteRedisPrefix, dropDatabase, removeDir } from './teardown.js';

const { dbName, prefix, storageDir } = benchNames(process.argv[2] ?? '');

async function sweep() {
  const removed: string[] = [];
  const attempt = async (what: string, fn: () => Promise<boolean>) => {
    try {
      if (await fn()) removed.push(what);
    } catch (err) {
      process.stderr.write(`[bench janitor] could not remove ${what}: ${(err as Error).message}\n`);
    }
  };
  await attempt(`database ${dbName}`, () => dropDatabase(dbName));
  await attempt(`Redis keys ${prefix}:*`, () => deleteRedisPrefix(prefix));
  await attempt(storageDir, () => removeDir(storageDir));
  if (removed.length) process.stderr.write(`[bench janitor] removed what an interrupted run left: ${removed.join(', ')}\n`);
}

process.stdin.on('data', () => {}); // nothing is ever sent; reading lets us see the end
let started = false;
process.stdin.on('close', () => {
  if (started) return;
  started = true;
  void sweep().finally(() => process.exit(0));
});
