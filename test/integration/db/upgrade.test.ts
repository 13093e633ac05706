// A new version's migration applied while this version's API and workers keep serving: statements
// prepared on every pooled connection before the migration keep answering after it adds columns to
// every table they read (test-only migration, applied from another pool as another process would).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Db } from '../../../src/db/pool.js';
import { migrate } from '../../../src/db/migrate.js';
import { TABLE_COLUMNS } from '../../../src/db/columns.js';
import { useTestApp } from '../../helpers/app.js';
import { operationSettled } from '../../helpers/operations.js';
import { fixture } from '../../helpers/spec-server.js';

// Expand: a column (nullable and with a default, as an expand migration adds them) on every table.
const EXPAND = `DO $$ DECLARE t record; BEGIN
  FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = 'public' LOOP
    EXECUTE format('ALTER TABLE %I ADD COLUMN upgrade_probe text DEFAULT %L', t.tablename, 'next version');
  END LOOP;
END $$;`;

describe('a migration that adds columns under running processes', () => {
  const { t, org } = useTestApp({ workers: ['openapi'], seedOrg: true, env: { PG_POOL_MAX: '4' } });
  let other: Db;
  beforeAll(() => {
    other = createPool(t.config.databaseUrl, 1); // the new version's process, migrating at its start
  });
  afterAll(() => other.end());

  let round = 0;
  /** Reads and writes of the API and a worker's job; each answer checked. */
  async function serve(): Promise<void> {
    const n = ++round;
    const as = { token: org.adminToken };
    const o = await t.api('GET', `/v1/orgs/${org.orgId}`, as);
    expect(o.status, o.text).toBe(200);
    expect(o.body.title).toBe('Test organization');
    const created = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { ...as, body: { title: `Space ${n}` } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    const renamed = await t.api('PATCH', `/v1/spaces/${id}`, { ...as, body: { title: `Renamed ${n}` } });
    expect(renamed.status, renamed.text).toBe(200);
    const space = await t.api('GET', `/v1/spaces/${id}`, as);
    expect(space.status, space.text).toBe(200);
    expect(space.body).toMatchObject({ id, title: `Renamed ${n}`, organization: org.orgId });
    const list = await t.api('GET', `/v1/orgs/${org.orgId}/spaces?limit=100`, as);
    expect(list.status, list.text).toBe(200);
    expect(list.body.items.map((s: { id: string }) => s.id)).toContain(id);
    const search = await t.api('GET', `/v1/spaces/${id}/search?query=anything`, as);
    expect(search.status, search.text).toBe(200);
    const site = await t.api('POST', `/v1/orgs/${org.orgId}/sites`, { ...as, body: { title: `Site ${n}`, spaces: [id] } });
    expect(site.status, site.text).toBe(201);
    const read = await t.api('GET', `/v1/orgs/${org.orgId}/sites/${site.body.id}`, as);
    expect(read.status, read.text).toBe(200);
    expect(read.body.title).toBe(`Site ${n}`);
    const spec = await t.api('POST', `/v1/orgs/${org.orgId}/openapi`, {
      ...as,
      body: { slug: `spec-${n}`, source: { text: await fixture('petstore.yaml') } },
    });
    expect(spec.status, spec.text).toBe(201);
    const op = await operationSettled(t, spec.headers.get('location'), as);
    expect(op.status, op.error).toBe('succeeded');
  }
  /** Several at once, so that every pooled connection prepares (or reuses) the named statements. */
  const serveMany = () => Promise.all([serve(), serve(), serve(), serve()]);

  it('lists, in src/db/columns.ts, exactly the columns of the tables named statements read', async () => {
    for (const [table, columns] of Object.entries(TABLE_COLUMNS)) {
      const { rows } = await other.query(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
        [table],
      );
      expect(
        rows.map((r) => r.column_name),
        `columns of ${table}`,
      ).toEqual([...columns]);
    }
  });

  it('keeps every read and write answering correctly, before and after', async () => {
    await serveMany();
    const applied = await migrate(other, [{ version: 9001, name: '9001_upgrade_probe.sql', sql: EXPAND }]);
    expect(applied).toEqual(['9001_upgrade_probe.sql']);
    await serveMany();
    await serveMany();
  }, 120_000);
});
