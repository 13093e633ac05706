// A private PostgreSQL cluster for tests that stop and restart the database (the machine's shared
// cluster serves every other test file). Built with the server's own binaries, run as `postgres`.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../helpers/http.js';

const exec = promisify(execFile);

/** The newest installed PostgreSQL's bin folder, or null when its server binaries are missing. */
export function postgresBin(): string | null {
  for (const v of ['17', '16', '15', '14']) {
    const bin = `/usr/lib/postgresql/${v}/bin`;
    if (existsSync(path.join(bin, 'initdb')) && existsSync(path.join(bin, 'pg_ctl'))) return bin;
  }
  return null;
}

/** Why a private cluster cannot be made here (null: it can). */
export function privateClusterUnavailable(): string | null {
  if (!postgresBin()) return 'PostgreSQL server binaries (initdb, pg_ctl under /usr/lib/postgresql/<version>/bin) are not installed';
  if (!existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser')) return 'runuser is missing (needed to run the server as postgres)';
  if (process.getuid?.() !== 0) return 'the tests do not run as root (needed to run the server as postgres)';
  return null;
}

export interface PrivateCluster {
  port: number;
  /** The URL of database `name` on this cluster (trust auth, user postgres). */
  url(name: string): string;
  start(): Promise<void>;
  /** `pg_ctl stop -m fast`: every backend is terminated (FATAL 57P01), as in a restart or failover. */
  stop(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startPrivateCluster(): Promise<PrivateCluster> {
  const bin = postgresBin()!;
  const dir = await mkdtemp(path.join(tmpdir(), 'dp-pg-'));
  const { stdout } = await exec('id', ['-u', 'postgres']);
  const { stdout: gid } = await exec('id', ['-g', 'postgres']);
  await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  const data = path.join(dir, 'data');
  const asPostgres = (cmd: string, args: string[]) => exec('runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args], { cwd: dir });
  await asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale', 'C']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  const cluster: PrivateCluster = {
    port,
    url: (name) => `postgres://postgres@127.0.0.1:${port}/${name}`,
    start: async () => void (await asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', 'start'])),
    stop: async () => void (await asPostgres('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop'])),
    async destroy() {
      await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}
