// Backups that restore (issue 26, item 6): an installation built through the API (members, a real
// GitBook space imported from git with its images, several revisions, a change request, a site
// with its customization, an OpenAPI spec) is backed up by the CLI as an operator runs it, restored
// into a new database and new storage (local disk, then S3), and the restored platform answers
// the same API calls with the same ids, bodies and file bytes. Then every refusal of restore.
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { createTestDatabase } from '../../helpers/db.js';
import { startGitServer, type GitServer } from '../../helpers/git-server.js';
import { operationSettled } from '../../helpers/operations.js';
import { GITBOOK_FIXTURES, requireFixtures } from '../../helpers/fixtures.js';
import { client, freePort, waitFor } from '../../helpers/http.js';
import { runTs, spawnTs } from '../../helpers/processes.js';
import { startS3rver, type RunningS3rver } from '../../helpers/s3rver.js';
import { PNG_2x1 } from '../../helpers/content.js';
import { loadConfig } from '../../../src/config.js';
import { createBlobStore } from '../../../src/storage/index.js';
import pg from 'pg';

const FIXTURE = path.join(requireFixtures(GITBOOK_FIXTURES), 'getstrm--pace');

// The source installation keeps its secret key in its database (SECRET_KEY unset): the harder case.
const { t, org } = useTestApp({ workers: ['git', 'search', 'openapi'], seedOrg: 'Backed up' });
const api = (method: string, p: string, body?: unknown, token = org.adminToken) => t.api(method, p, { token, body });

let git: GitServer;
let s3: RunningS3rver;
let work: string;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  git = await startGitServer();
  s3 = await startS3rver();
  work = await mkdtemp(path.join(tmpdir(), 'dp-backup-test-'));
}, 60_000);
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
  await git?.close();
  await s3?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

const cli = (args: string[], env: Record<string, string>) => runTs('src/cli.ts', args, { LOG_LEVEL: 'silent', ...env });

/** A new, empty database and storage folder, dropped after the file. */
async function emptyTarget(storage: 'local' | 's3' = 'local'): Promise<Record<string, string>> {
  const db = await createTestDatabase();
  cleanups.push(() => db.drop());
  const blobDir = await mkdtemp(path.join(work, 'blobs-'));
  const env: Record<string, string> = { ...t.env, DATABASE_URL: db.url, LOCAL_STORAGE_DIR: blobDir };
  for (const k of ['S3_BUCKET', 'S3_ENDPOINT', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY']) delete env[k];
  return storage === 'local' ? env : { ...env, ...s3.env(`restored-${path.basename(blobDir).slice(6).toLowerCase()}`) };
}

/**
 * The API started on a restored database and storage in a process of its own, as an operator
 * starts it (no cache of this test process is shared with it).
 */
async function startOn(env: Record<string, string>): Promise<{ baseUrl: string; call: ReturnType<typeof client> }> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawnTs('src/api.ts', [], { ...env, PORT: String(port), PUBLIC_URL: baseUrl, LOG_LEVEL: 'warn' });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise((r) => child.once('exit', r));
  cleanups.push(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  const call = client(baseUrl);
  await waitFor(async () => child.exitCode === null && (await call('GET', '/readyz')).status === 200, {
    timeoutMs: 60_000,
    what: `the restored API to start (${output.slice(-500)})`,
  });
  return { baseUrl, call };
}

const walk = (pages: any[]): any[] => pages.flatMap((p) => [p, ...walk(p.pages ?? [])]);

let spaceId: string;
let crOpen: any;
let siteId: string;
let reader: { userId: string; token: string };
let backupDir: string;
/** Path -> [status, body] of every call the comparison repeats on a restored platform. */
let before: Map<string, [number, unknown]>;
let importOperation: string;
let files: { id: string; bytes: Buffer; downloadURL: string }[];

/** The answers compared before and after, with the server's own address taken out. */
async function answers(call: (m: string, p: string, o?: { token?: string }) => Promise<any>, baseUrl: string) {
  const out = new Map<string, [number, unknown]>();
  const get = async (p: string, token = org.adminToken) => {
    const r = await call('GET', p, { token });
    out.set(`${token === org.adminToken ? 'admin' : 'reader'} ${p}`, [r.status, normalize(r.body, baseUrl)]);
    return r.body;
  };
  await get(`/v1/orgs/${org.orgId}`);
  await get(`/v1/orgs/${org.orgId}/members`);
  await get(`/v1/orgs/${org.orgId}/spaces`);
  await get(`/v1/orgs/${org.orgId}/spaces`, reader.token);
  await get(`/v1/spaces/${spaceId}`);
  await get(`/v1/spaces/${spaceId}/content`);
  const pages = walk((await get(`/v1/spaces/${spaceId}/content/pages`)).pages);
  for (const p of pages.filter((x) => x.type === 'document')) await get(`/v1/spaces/${spaceId}/content/page/${p.id}?format=markdown`);
  await get(`/v1/spaces/${spaceId}/content/files?limit=1000`);
  await get(`/v1/spaces/${spaceId}/change-requests`);
  await get(`/v1/spaces/${spaceId}/change-requests/${crOpen.id}`);
  await get(`/v1/spaces/${spaceId}/change-requests/${crOpen.id}/content/pages`);
  await get(`/v1/orgs/${org.orgId}/sites`);
  await get(`/v1/orgs/${org.orgId}/sites/${siteId}`);
  await get(`/v1/orgs/${org.orgId}/sites/${siteId}/customization`);
  await get(`/v1/orgs/${org.orgId}/openapi`);
  await get(`/v1/orgs/${org.orgId}/openapi/petstore/versions/latest/content`);
  await get(`/v1/orgs/${org.orgId}/openapi/petstore/versions/latest/content/raw`);
  await get(`/v1/operations/${importOperation}`);
  await get(`/v1/spaces/${spaceId}/search?query=policy`);
  return out;
}

/**
 * The body with the server's address and the per-request signatures of download links taken out;
 * also a site's preview token, which names its 10-minute validity window (a backup and its restore
 * may fall on either side of a window's end).
 */
function normalize(body: unknown, baseUrl: string): unknown {
  return JSON.parse(
    JSON.stringify(body)
      .split(baseUrl)
      .join('<server>')
      .replace(/([?&])(exp|sig|expires|signature|token)=[^&"]*/g, '$1$2=<signed>'),
  );
}

// The installation and its backup, made once for every test of the file.
beforeAll(async () => {
  // Members: an editor and a reader.
  await t.seedUser(org.orgId, 'edit', 'Eve Editor');
  reader = await t.seedUser(org.orgId, 'read', 'Rita Reader');
  // A real GitBook space with its images, imported from git.
  const dir = await mkdtemp(path.join(work, 'repo-'));
  await cp(FIXTURE, dir, { recursive: true });
  const url = await git.createRepo('pace', { dir });
  spaceId = (await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title: 'PACE', empty: true })).body.id;
  const imp = await api('POST', `/v1/spaces/${spaceId}/git/import`, { url, ref: 'refs/heads/main', repoProjectDirectory: 'docs' });
  expect(imp.status, imp.text).toBe(204);
  const done = await operationSettled(t, imp.headers.get('location'), { token: org.adminToken, timeoutMs: 120_000 });
  expect(done.status, done.error).toBe('succeeded');
  importOperation = done.id;
  // More revisions: a merged change request that adds a page and a file, and one left open.
  const merged = (await api('POST', `/v1/spaces/${spaceId}/change-requests`, { subject: 'Add a page' })).body;
  const batch = await api('POST', `/v1/spaces/${spaceId}/change-requests/${merged.id}/content?compat=false`, {
    changes: [
      {
        operation: 'insert_page',
        ref: 'new',
        title: 'Backups',
        document: { markdown: 'A policy page with ![logo](./logo).' },
      },
      {
        operation: 'insert_files',
        files: [{ ref: 'logo', name: 'logo.png', contentType: 'image/png', base64: PNG_2x1.toString('base64') }],
      },
    ],
  });
  expect(batch.status, batch.text).toBe(200);
  expect((await api('POST', `/v1/spaces/${spaceId}/change-requests/${merged.id}/merge`)).status).toBe(200);
  crOpen = (await api('POST', `/v1/spaces/${spaceId}/change-requests`, { subject: 'Still open' })).body;
  const edit = await api('POST', `/v1/spaces/${spaceId}/change-requests/${crOpen.id}/content?compat=false`, {
    changes: [{ operation: 'insert_page', ref: 'draft', title: 'Draft', document: { markdown: 'Not yet.' } }],
  });
  expect(edit.status, edit.text).toBe(200);
  // A site with its customization, published.
  const site = await api('POST', `/v1/orgs/${org.orgId}/sites`, { title: 'PACE docs', spaces: [spaceId] });
  expect(site.status, site.text).toBe(201);
  siteId = site.body.id;
  const custom = await api('PUT', `/v1/orgs/${org.orgId}/sites/${siteId}/customization`, {
    styling: { primaryColor: { light: '#ff0000', dark: '#00ff00' }, corners: 'straight' },
    announcement: { enabled: true, message: 'Restored or not?', style: 'info' },
  });
  expect(custom.status, custom.text).toBe(200);
  expect((await api('POST', `/v1/orgs/${org.orgId}/sites/${siteId}/publish`)).status).toBe(200);
  // An OpenAPI spec (its bytes live in storage under a folder of their own).
  const spec = await api('PUT', `/v1/orgs/${org.orgId}/openapi/petstore`, {
    source: { text: JSON.stringify({ openapi: '3.0.0', info: { title: 'Pets', version: '1' }, paths: {} }) },
  });
  expect([200, 201], spec.text).toContain(spec.status);
  const processed = await operationSettled(t, spec.headers.get('location'), { token: org.adminToken });
  expect(processed.status, processed.error).toBe('succeeded');

  // The import's pages reach the search index by a job: wait until its answer stops changing.
  let last = '';
  for (let i = 0; i < 100; i++) {
    const now = JSON.stringify((await api('GET', `/v1/spaces/${spaceId}/search?query=policy`)).body);
    if (now === last && now.includes('"items":[{')) break;
    last = now;
    await new Promise((r) => setTimeout(r, 300));
  }
  before = await answers(t.api, t.baseUrl);
  const list = (await api('GET', `/v1/spaces/${spaceId}/content/files?limit=1000`)).body.items as any[];
  expect(list.length).toBeGreaterThan(10); // the fixture's images and the logo
  files = [];
  for (const f of list)
    files.push({ id: f.id, downloadURL: f.downloadURL, bytes: Buffer.from(await (await fetch(f.downloadURL)).arrayBuffer()) });

  backupDir = path.join(work, 'backup');
  const b = await cli(['backup', backupDir], t.env);
  expect(b.code, b.stderr).toBe(0);
}, 300_000);

describe('backup and restore', () => {
  it('writes a manifest with the migration level, counts and checksums, and never the secret key', async () => {
    const manifest = JSON.parse(await readFile(path.join(backupDir, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ format: 'docsplatform-backup', formatVersion: 1, storage: { driver: 'local' } });
    expect(manifest.migration.name).toMatch(/^\d{4}_.*\.sql$/);
    expect(manifest.secretKey).toMatchObject({ source: 'database', check: expect.any(String) });
    const table = (name: string) => manifest.tables.find((x: any) => x.name === name);
    expect(table('spaces').rows).toBe(1);
    expect(table('revisions').rows).toBeGreaterThanOrEqual(3);
    expect(table('change_requests').rows).toBe(2);
    expect(table('blobs').rows).toBe(manifest.blobs.objects - 2); // file bytes, plus the spec's two objects
    expect(manifest.blobs.missing.count).toBe(0);
    // The key is configuration: in no file of the backup, compressed or not.
    const secret = t.app.secret;
    for (const f of await readdir(path.join(backupDir, 'db'))) {
      expect(gunzipSync(await readFile(path.join(backupDir, 'db', f))).includes(secret), f).toBe(false);
    }
    expect((await readFile(path.join(backupDir, 'manifest.json'), 'utf8')).includes(secret)).toBe(false);
  });

  for (const storage of ['local', 's3'] as const) {
    it(`restores into a new database and new ${storage} storage: the same API answers, ids, file bytes and signed links`, async () => {
      const env = await emptyTarget(storage);
      const r = await cli(['restore', backupDir], { ...env, SECRET_KEY: t.app.secret });
      expect(r.code, r.stderr).toBe(0);
      const restored = await startOn(env); // without SECRET_KEY, as the source ran: the key went back into the database
      const after = await answers(restored.call, restored.baseUrl);
      expect([...after.keys()]).toEqual([...before.keys()]);
      for (const [k, v] of before) expect(after.get(k), k).toEqual(v);
      for (const f of files) {
        const got = await fetch(f.downloadURL.replace(t.baseUrl, restored.baseUrl)); // a link handed out before the backup
        expect(got.status, f.id).toBe(200);
        expect(Buffer.from(await got.arrayBuffer()).equals(f.bytes), f.id).toBe(true);
      }
      if (storage === 's3') {
        // And a backup of the restored S3 installation holds the same rows and objects.
        const again = path.join(work, 'backup-of-s3');
        const b = await cli(['backup', again], env);
        expect(b.code, b.stderr).toBe(0);
        const m1 = JSON.parse(await readFile(path.join(backupDir, 'manifest.json'), 'utf8'));
        const m2 = JSON.parse(await readFile(path.join(again, 'manifest.json'), 'utf8'));
        expect(m2.storage.driver).toBe('s3');
        const counts = (m: any) => m.tables.map((x: any) => [x.name, x.rows]);
        expect(counts(m2)).toEqual(counts(m1));
        expect([m2.blobs.objects, m2.blobs.bytes]).toEqual([m1.blobs.objects, m1.blobs.bytes]);
      }
    }, 180_000);
  }
});

describe('restore refuses', () => {
  /** A copy of the backup to damage. */
  async function copyOfBackup(): Promise<string> {
    const dir = await mkdtemp(path.join(work, 'copy-'));
    await cp(backupDir, dir, { recursive: true });
    return dir;
  }
  const restoreInto = (dir: string, env: Record<string, string>, extra: string[] = []) =>
    cli(['restore', dir, ...extra], { SECRET_KEY: t.app.secret, ...env });

  /** Nothing was written: no table in the database, nothing in storage but what `keep` names. */
  async function untouched(env: Record<string, string>, keep: string[] = []) {
    const db = new pg.Client({ connectionString: env.DATABASE_URL });
    await db.connect();
    try {
      expect((await db.query(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`)).rows[0].n).toBe(0);
    } finally {
      await db.end();
    }
    const store = await createBlobStore(loadConfig(env).storage);
    expect(await store.list('')).toEqual(keep);
    await store.close();
  }

  it('a database that is not empty, and storage that is not empty', async () => {
    const full = await emptyTarget();
    expect((await restoreInto(backupDir, full)).code).toBe(0);
    const again = await restoreInto(backupDir, { ...(await emptyTarget()), DATABASE_URL: full.DATABASE_URL });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/error: The database is not empty \(rows in .*\): restore into a new, empty database/);

    const env = await emptyTarget();
    await writeFile(path.join(env.LOCAL_STORAGE_DIR, 'stranger.txt'), 'not from this backup');
    const r = await restoreInto(backupDir, env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error: The storage is not empty \(1 object\(s\) not in this backup, e.g. stranger.txt\)/);
    await untouched(env, ['stranger.txt']);
  }, 120_000);

  it('a newer format or migration level', async () => {
    for (const [change, message] of [
      [(m: any) => (m.formatVersion = 2), /error: The backup has format 2, newer than this version reads \(1\)/],
      [
        (m: any) => (m.migration = { version: 9999, name: '9999_future.sql' }),
        /error: .*at migration 9999_future.sql, newer than this version knows/,
      ],
    ] as const) {
      const dir = await copyOfBackup();
      const file = path.join(dir, 'manifest.json');
      const m = JSON.parse(await readFile(file, 'utf8'));
      change(m);
      await writeFile(file, JSON.stringify(m));
      const env = await emptyTarget();
      const r = await restoreInto(dir, env);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(message);
      await untouched(env);
    }
  }, 120_000);

  it('a damaged backup: a changed table file, a missing object, a cut manifest, a folder without one', async () => {
    const cases: [(dir: string) => Promise<unknown>, RegExp][] = [
      [
        async (dir) => {
          const f = path.join(dir, 'db', 'spaces.copy.gz');
          const bytes = await readFile(f);
          bytes[bytes.length - 5] ^= 0xff;
          await writeFile(f, bytes);
        },
        /error: The backup is damaged: db\/spaces.copy.gz does not match its checksum/,
      ],
      [
        async (dir) => {
          const sub = (await readdir(path.join(dir, 'blobs')))[0];
          await rm(path.join(dir, 'blobs', sub), { recursive: true });
        },
        /error: The backup is damaged: the bytes of .* are missing/,
      ],
      [
        async (dir) => writeFile(path.join(dir, 'manifest.json'), (await readFile(path.join(dir, 'manifest.json'), 'utf8')).slice(0, 200)),
        /error: The backup is damaged: manifest.json is not JSON/,
      ],
      [async (dir) => rm(path.join(dir, 'manifest.json')), /error: .* holds no manifest.json: not a backup, or one that did not finish/],
    ];
    for (const [damage, message] of cases) {
      const dir = await copyOfBackup();
      await damage(dir);
      const env = await emptyTarget();
      const r = await restoreInto(dir, env);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(message);
      await untouched(env);
    }
  }, 120_000);

  it('another secret key, or none, unless told to restore without it', async () => {
    const env = await emptyTarget();
    const wrong = await restoreInto(backupDir, { ...env, SECRET_KEY: 'not-the-key' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/error: SECRET_KEY is not the backed-up installation's key/);
    const none = await restoreInto(backupDir, { ...env, SECRET_KEY: '' });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/error: SECRET_KEY is not set: the backed-up installation's key .* is not in the backup/);
    await untouched(env);
    const anyway = await restoreInto(backupDir, { ...env, SECRET_KEY: '' }, ['--new-secret-key']);
    expect(anyway.code, anyway.stderr).toBe(0);
    const restored = await startOn(env);
    expect((await restored.call('GET', `/v1/spaces/${spaceId}`, { token: org.adminToken })).status).toBe(200);
    // A new key: what the old one signed or sealed is lost (a download link handed out before), the content is not.
    const link = files[0].downloadURL.replace(t.baseUrl, restored.baseUrl);
    expect((await fetch(link)).status).toBe(403);
    const fresh = (await restored.call('GET', `/v1/spaces/${spaceId}/content/files/${files[0].id}`, { token: org.adminToken })).body;
    expect(Buffer.from(await (await fetch(fresh.downloadURL)).arrayBuffer()).equals(files[0].bytes)).toBe(true);
  }, 120_000);

  it('backup refuses a folder that is not empty', async () => {
    const r = await cli(['backup', backupDir], t.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error: The backup folder .* is not empty: give a new or empty folder/);
  });
});
