// Credentials in an OpenAPI source URL (issue 8, item 7): the worker fetches with them, and they
// appear in no database row, no API response, no log line and no Redis key, in clear or encoded.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { operationSettled } from '../../helpers/operations.js';
import { TEST_REDIS_URL } from '../../helpers/env.js';
import { startSpecServer } from '../../helpers/spec-server.js';
import { withTx } from '../../../src/db/pool.js';
import { insertSpec } from '../../../src/db/repos/openapi.js';
import { createOperation } from '../../../src/services/operations.js';
import { createAppContext, closeAppContext } from '../../../src/context.js';
import { createLogger } from '../../../src/log.js';
import { sealStoredSecrets } from '../../../src/db/sealed-secrets.js';
import { newId } from '../../../src/util/ids.js';

const USER = `reader-${randomBytes(4).toString('hex')}`;
// Characters that must be percent-encoded in a URL: both spellings must stay hidden.
const PASS = `Pa@ss/w:rd-${randomBytes(6).toString('hex')}`;
const TOKEN = `tok-${randomBytes(12).toString('hex')}`;
const FORMS = [PASS, encodeURIComponent(PASS), Buffer.from(`${USER}:${PASS}`).toString('base64'), TOKEN];

let specs: Awaited<ReturnType<typeof startSpecServer>>;
beforeAll(async () => {
  specs = await startSpecServer({ basicAuth: { username: USER, password: PASS }, queryToken: { name: 'access_token', value: TOKEN } });
});
afterAll(() => specs?.close());
const { t, org } = useTestApp({ workers: ['openapi'], captureLogs: true, seedOrg: true });

const base = () => `/v1/orgs/${org.orgId}/openapi`;
const withCredentials = (path: string, password = PASS) =>
  `${specs.url.replace('http://', `http://${USER}:${encodeURIComponent(password)}@`)}${path}`;

function leaks(text: string): string[] {
  return FORMS.filter((f) => text.includes(f));
}

const settle = (location: string) =>
  operationSettled(t, location, { token: org.adminToken, eachRead: (r) => expect(leaks(r.text)).toEqual([]) });

/** Every row of every table of the test database, as text. */
async function databaseText(): Promise<string> {
  const { rows: tables } = await t.app.db.query(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const parts: string[] = [];
  for (const { table_name } of tables) {
    const { rows } = await t.app.db.query(`SELECT t::text AS row FROM public."${table_name}" t`);
    parts.push(...rows.map((r) => `${table_name}: ${r.row}`));
  }
  return parts.join('\n');
}

/** Every value under this app's Redis prefix (BullMQ jobs, failure reasons, events), as text. */
async function redisText(): Promise<string> {
  const redis = new Redis(TEST_REDIS_URL);
  const parts: string[] = [];
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${t.env.QUEUE_PREFIX}:*`, 'COUNT', 500);
      cursor = next;
      for (const key of keys) {
        const type = await redis.type(key);
        if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
        else if (type === 'string') parts.push(String(await redis.get(key)));
        else if (type === 'list') parts.push(...(await redis.lrange(key, 0, -1)));
        else if (type === 'zset') parts.push(...(await redis.zrange(key, '0', '-1')));
        else if (type === 'set') parts.push(...(await redis.smembers(key)));
        else if (type === 'stream') parts.push(JSON.stringify(await redis.xrange(key, '-', '+')));
      }
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return parts.join('\n');
}

describe('credentials in an OpenAPI source URL', () => {
  it('fetches with the Basic credentials of the URL (relative $refs too) and shows or stores them nowhere', async () => {
    const r = await t.api('POST', base(), {
      token: org.adminToken,
      body: { slug: 'private-multi', source: { url: withCredentials('/basic/multi/openapi.yaml') } },
    });
    expect(r.status).toBe(201);
    expect(leaks(r.text)).toEqual([]);
    expect(r.body.sourceURL).toBe(`${specs.url}/basic/multi/openapi.yaml`);

    const op = await settle(r.headers.get('location')!);
    expect(op.status).toBe('succeeded');
    // The server answered only requests carrying the right credentials, the external files' too.
    expect([...specs.refused.keys()]).toEqual([]);
    expect(specs.hits.get('/basic/multi/openapi.yaml')).toBeGreaterThanOrEqual(1);
    expect([...specs.hits.keys()].filter((p) => p.startsWith('/basic/multi/') && p !== '/basic/multi/openapi.yaml').length).toBeGreaterThan(
      0,
    );

    // A PUT of the same credentialed source: same treatment.
    const put = await t.api('PUT', `${base()}/private-multi`, {
      token: org.adminToken,
      body: { source: { url: withCredentials('/basic/multi/openapi.yaml') } },
    });
    expect(put.status).toBe(200);
    expect(leaks(put.text)).toEqual([]);
    expect((await settle(put.headers.get('location')!)).status).toBe('succeeded');

    for (const path of [
      '',
      '/private-multi',
      '/private-multi/versions/latest',
      '/private-multi/versions/latest/content',
      '/private-multi/versions/latest/content/raw',
    ]) {
      const res = await t.api('GET', `${base()}${path}`, { token: org.adminToken });
      expect(res.status, path).toBe(200);
      expect(leaks(res.text), path).toEqual([]);
    }
    const content = await t.api('GET', `${base()}/private-multi/versions/latest/content`, { token: org.adminToken });
    expect(content.body.urls.source).toBe(`${specs.url}/basic/multi/openapi.yaml`);

    // The row keeps the shown URL and the sealed whole; no row of any table holds a credential.
    const { rows } = await t.app.db.query('SELECT source_url, source_url_sealed FROM openapi_specs WHERE slug = $1', ['private-multi']);
    expect(rows[0].source_url).toBe(`${specs.url}/basic/multi/openapi.yaml`);
    expect(rows[0].source_url_sealed).toMatch(/^v1\./);
    expect(leaks(await databaseText())).toEqual([]);
    const redis = await redisText();
    expect(redis).toContain(op.id); // the job's own data was read
    expect(leaks(redis)).toEqual([]);
    const logs = t.logs.join('\n');
    expect(logs).toContain('operation succeeded');
    expect(leaks(logs)).toEqual([]);
  });

  it('seals a credential in the query string too; the shown URL has it redacted', async () => {
    const r = await t.api('POST', base(), {
      token: org.adminToken,
      body: { slug: 'token-in-query', source: { url: `${specs.url}/token/petstore.yaml?access_token=${TOKEN}&lang=en` } },
    });
    expect(r.status).toBe(201);
    expect(leaks(r.text)).toEqual([]);
    expect(r.body.sourceURL).toBe(`${specs.url}/token/petstore.yaml?access_token=redacted&lang=en`);
    expect((await settle(r.headers.get('location')!)).status).toBe('succeeded');
    expect(specs.refused.get('/token/petstore.yaml')).toBeUndefined();
    expect(leaks(await databaseText())).toEqual([]);
    expect(leaks(await redisText())).toEqual([]);
    expect(leaks(t.logs.join('\n'))).toEqual([]);
  });

  it('keeps credentials out of error messages that name the URL (spec, operation, Redis, logs)', async () => {
    // The parser's message names the referenced file's full URL, credentials included.
    const r = await t.api('POST', base(), {
      token: org.adminToken,
      body: { slug: 'bad-ref', source: { url: withCredentials('/basic/ref-to-malformed.yaml') } },
    });
    const op = await settle(r.headers.get('location')!);
    expect(op.status).toBe('failed');
    expect(op.error).toContain(`${specs.url}/basic/malformed.yaml`);
    const spec = await t.api('GET', `${base()}/bad-ref`, { token: org.adminToken });
    expect(spec.body.lastProcessErrorCode).toBe('PARSE_ERROR');
    expect(spec.body.lastProcessedErrors[0].message).toContain(`Error parsing ${specs.url}/basic/malformed.yaml`);
    expect(leaks(spec.text)).toEqual([]);

    // Wrong credentials: the server refuses, the operation fails, and the wrong password leaks nowhere either.
    const wrong = `Wr0ng-${randomBytes(6).toString('hex')}`;
    const w = await t.api('PUT', `${base()}/bad-ref`, {
      token: org.adminToken,
      body: { source: { url: withCredentials('/basic/petstore.yaml', wrong) } },
    });
    const wop = await settle(w.headers.get('location')!);
    expect(wop.status).toBe('failed');
    expect(wop.error).toMatch(/HTTP 401/);
    expect(specs.refused.get('/basic/petstore.yaml')).toBeGreaterThanOrEqual(1);

    const everything = `${await databaseText()}\n${await redisText()}\n${t.logs.join('\n')}`;
    expect(everything).toContain('operation failed');
    expect(leaks(everything)).toEqual([]);
    expect(everything).not.toContain(wrong);
  });

  it('seals source URLs an earlier version stored in clear at the next start-up; the worker still fetches them', async () => {
    // A row as the previous version wrote it: the credentialed URL in clear, its operation committed.
    const clear = withCredentials('/basic/petstore.yaml');
    const op = await withTx(t.app.db, async (c) => {
      const specId = newId();
      const op = await createOperation(c, 'openapi.process', {
        organizationId: org.orgId,
        payload: { specId },
        targetType: 'openapi-spec',
        targetId: specId,
      });
      await insertSpec(c, { id: specId, orgId: org.orgId, slug: 'legacy-clear', sourceUrl: clear, sourceText: null, operationId: op.id });
      return op;
    });
    expect(leaks(await databaseText()).length).toBeGreaterThan(0);

    // A process starting (AUTO_MIGRATE) seals it.
    const restarted = await createAppContext(t.config, 'restart', createLogger('silent', 'restart'));
    await closeAppContext(restarted);
    const { rows } = await t.app.db.query('SELECT source_url, source_url_sealed FROM openapi_specs WHERE slug = $1', ['legacy-clear']);
    expect(rows[0].source_url).toBe(`${specs.url}/basic/petstore.yaml`);
    expect(rows[0].source_url_sealed).toMatch(/^v1\./);
    expect(leaks(await databaseText())).toEqual([]);
    expect(await sealStoredSecrets(t.app.db, t.app.secret)).toBe(0);

    await t.app.jobs.enqueue(op);
    expect((await settle(`${t.baseUrl}/v1/operations/${op.id}`)).status).toBe('succeeded');
    const got = await t.api('GET', `${base()}/legacy-clear`, { token: org.adminToken });
    expect(got.body).toMatchObject({ processingState: 'complete', sourceURL: `${specs.url}/basic/petstore.yaml` });
    expect(leaks(got.text)).toEqual([]);
  });
});
