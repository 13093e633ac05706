import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { operationSettled } from '../../helpers/operations.js';
import { OPENAPI_FIXTURES, requireFixtures } from '../../helpers/fixtures.js';
import { assertMatchesSpec } from '../../helpers/spec.js';
import { startSpecServer } from '../../helpers/spec-server.js';
import { editContent } from '../../helpers/content.js';
import { evaluateOpenAPIOperation } from '../../../src/content/computed.js';
import { GitBookAPI } from '@gitbook/api';
import { pdfText } from '../../helpers/pdf.js';

let specs: Awaited<ReturnType<typeof startSpecServer>>;

const REAL = {
  growthbook: 'growthbook-rest-api/openapi.yaml',
  harbor: 'harbor-api-v2.0/swagger.yaml',
};

requireFixtures(OPENAPI_FIXTURES);

beforeAll(async () => {
  specs = await startSpecServer();
});
afterAll(() => specs.close());
// Two large real descriptions fetched and validated at once: a generous fetch limit for a loaded machine.
const { t, org } = useTestApp({ workers: ['openapi', 'pdf'], env: { FETCH_TIMEOUT_MS: '60000' }, seedOrg: true });

beforeAll(async () => {
  for (const [slug, file] of Object.entries(REAL)) {
    const r = await t.api('PUT', `/v1/orgs/${org.orgId}/openapi/${slug}`, {
      token: org.adminToken,
      body: { source: { url: `${specs.url}/shared/${file}` } },
    });
    const op = await operationSettled(t, r.headers.get('location'), { token: org.adminToken, what: `processing of ${slug}` });
    expect(op.status, JSON.stringify(op)).toBe('succeeded');
  }
});

const source = (spec: string, models = false) => ({
  type: 'builtin:openapi',
  dependencies: { spec: { ref: { kind: 'openapi', spec } } },
  props: { models },
});

async function createComputedSpace(spec: string, models = false) {
  const r = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, {
    token: org.adminToken,
    body: { title: `${spec} reference`, computedSource: source(spec, models) },
  });
  expect(r.status).toBe(201);
  assertMatchesSpec('POST', '/orgs/{organizationId}/spaces', 201, r.body);
  const pages = await t.api('GET', `/v1/spaces/${r.body.id}/content/pages`, { token: org.adminToken });
  expect(pages.status).toBe(200);
  return { space: r.body, pages: pages.body.pages as any[] };
}

/** A JSON pointer of the test's own, to check the server's resolution independently. */
function deref(doc: any, v: any): any {
  for (let i = 0; i < 20 && v && typeof v.$ref === 'string'; i++) {
    v = v.$ref
      .slice(2)
      .split('/')
      .reduce((o: any, k: string) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return v;
}

/** Every operation of a description with the names of its parameters (path-level and `$ref` ones included). */
function expectedOperations(doc: any) {
  const out: { key: string; params: string[]; body: boolean; responses: string[] }[] = [];
  for (const [path, rawItem] of Object.entries<any>(doc.paths)) {
    const item = deref(doc, rawItem);
    for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']) {
      const op = deref(doc, item[method]);
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => deref(doc, p));
      out.push({
        key: `${method.toUpperCase()} ${path}`,
        params: [...new Set(params.filter((p) => p.in !== 'body').map((p) => String(p.name)))],
        body: !!op.requestBody || params.some((p) => p.in === 'body'),
        responses: Object.keys(op.responses ?? {}),
      });
    }
  }
  return out;
}

/** The rendered Markdown split into operations, keyed by their `METHOD path` line (each runs to the next one). */
function sectionsByOperation(markdown: string, into = new Map<string, string>()) {
  const parts = markdown.split(/\n(?=`[A-Z]+ \/[^`]*`(?: \(deprecated\))?\n)/);
  for (const part of parts.slice(1)) into.set(/^`([^`]+)`/.exec(part)![1], part);
  return into;
}

/** Every page of a space read as Markdown, with its tree entry. */
async function readPages(spaceId: string, pages: any[]) {
  const out: { page: any; markdown: string }[] = [];
  for (const page of pages) {
    const read = await t.api('GET', `/v1/spaces/${spaceId}/content/page/${page.id}`, { token: org.adminToken });
    expect(read.status).toBe(200);
    out.push({ page, markdown: read.body.markdown });
  }
  return out;
}

describe('spaces created from an OpenAPI computed source', () => {
  for (const slug of Object.keys(REAL)) {
    it(`renders every operation of the real ${slug} description with its parameters, request body and responses`, async () => {
      const { space, pages } = await createComputedSpace(slug);
      const content = (await t.api('GET', `/v1/orgs/${org.orgId}/openapi/${slug}/versions/latest/content`, { token: org.adminToken })).body
        .filesystem;
      const expected = expectedOperations(content);
      expect(expected.length).toBeGreaterThan(100);

      // By tag: an overview page, then one computed page per tag, each keeping the source.
      expect(pages.length).toBeGreaterThan(20);
      for (const p of pages) expect(p).toMatchObject({ type: 'document', computed: { ...source(slug), props: { models: false } } });
      expect(pages[0].computed.props.doc).toBe('info');
      expect(pages.slice(1).every((p) => p.computed.props.doc === 'tag')).toBe(true);

      const read = await readPages(space.id, pages);
      const sections = new Map<string, string>();
      for (const { markdown } of read) sectionsByOperation(markdown, sections);
      const missing: string[] = [];
      for (const op of expected) {
        const section = sections.get(op.key);
        if (!section) {
          missing.push(op.key);
          continue;
        }
        for (const name of op.params) if (!section.includes(`| \`${name}\` |`)) missing.push(`${op.key} parameter ${name}`);
        if (op.body && !section.includes('**Request body**')) missing.push(`${op.key} request body`);
        for (const status of op.responses) if (!section.includes(`Response **${status}**`)) missing.push(`${op.key} response ${status}`);
      }
      expect(missing).toEqual([]);
      expect(sections.size).toBe(expected.length);

      // As a JSON document a page is parsed for real (tables), not the plain-text fallback of an oversized body.
      const biggest = read.reduce((a, b) => (b.markdown.length > a.markdown.length ? b : a));
      const doc = await t.api('GET', `/v1/spaces/${space.id}/content/page/${biggest.page.id}?format=document`, { token: org.adminToken });
      expect(doc.status).toBe(200);
      const text = JSON.stringify(doc.body.document);
      expect(text).toContain('"type":"table"');
      expect(text).not.toContain('shown as plain text');
    });
  }

  it('shows response schemas field by field, and the models on a page of their own when asked', async () => {
    const { space, pages } = await createComputedSpace('harbor', true);
    const read = await readPages(space.id, pages);
    const health = sectionsByOperation(read.find((r) => r.page.title === 'health')!.markdown).get('GET /health')!;
    expect(health).toContain('Response **200**: The health status of Harbor components');
    expect(health).toMatch(/\| `components\[\]\.status` \| string \| no \| The health status of component/);
    const models = read[read.length - 1];
    expect(models.page).toMatchObject({ title: 'Models', computed: { props: { models: true, doc: 'models' } } });
    expect(models.markdown).toContain('## ProjectReq');
    expect(models.markdown).toMatch(/\| `project_name` \| string \| no \| The name of the project/);
    // The overview: the description's own text and where its operations are.
    expect(read[0].markdown).toContain('Version: `2.0`');
    expect(read[0].markdown).toContain('- health: 1 operation');
  });

  it("accepts the official client's createSpace with a computed source", async () => {
    // Untyped here for the reason given in test/integration/http/official-client.test.ts.
    const client: any = new GitBookAPI({ endpoint: t.baseUrl, authToken: org.adminToken });
    const r = await client.orgs.createSpace(org.orgId, { title: 'Client reference', computedSource: source('harbor', true) });
    expect(r.status).toBe(201);
    const pages = await client.spaces.listPages(r.data.id);
    const titles = pages.data.pages.map((p: any) => p.title);
    expect(titles[0]).toBe('Harbor API');
    expect(titles).toContain('health');
    expect(titles[titles.length - 1]).toBe('Models');
  });

  it('links the overview to the description with downloadLink, once the spec is public', async () => {
    const r = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, {
      token: org.adminToken,
      body: { computedSource: { ...source('harbor'), props: { models: false, downloadLink: true } } },
    });
    expect(r.status).toBe(201);
    const pages = (await t.api('GET', `/v1/spaces/${r.body.id}/content/pages`, { token: org.adminToken })).body.pages;
    const overview = () => t.api('GET', `/v1/spaces/${r.body.id}/content/page/${pages[0].id}`, { token: org.adminToken });
    expect((await overview()).body.markdown).not.toContain('Download');
    const patched = await t.api('PATCH', `/v1/orgs/${org.orgId}/openapi/harbor`, { token: org.adminToken, body: { visibility: 'public' } });
    expect(patched.status).toBe(200);
    const md = (await overview()).body.markdown;
    const link = /^\[Download the OpenAPI description\]\((\S+)\)/.exec(md)?.[1];
    expect(link).toBe(patched.body.urls.published);
    expect((await fetch(link!)).status).toBe(200);
    // Tag pages carry no link.
    expect(
      (await t.api('GET', `/v1/spaces/${r.body.id}/content/page/${pages[1].id}`, { token: org.adminToken })).body.markdown,
    ).not.toContain('Download');
    await t.api('PATCH', `/v1/orgs/${org.orgId}/openapi/harbor`, { token: org.adminToken, body: { visibility: 'private' } });
  });

  it('publishes the computed pages as HTML', async () => {
    const { space, pages } = await createComputedSpace('growthbook');
    await t.api('PATCH', `/v1/spaces/${space.id}`, { token: org.adminToken, body: { visibility: 'public' } });
    const features = pages.find((p) => p.computed.props.page === 'features')!;
    const r = await fetch(`${t.baseUrl}/s/${space.id}/${features.path}`);
    expect(r.status).toBe(200);
    const html = await r.text();
    expect(html).toContain('<code>GET /features</code>');
    expect(html).toMatch(/<td><code>limit<\/code><\/td>\s*<td>query<\/td>/);
    expect(html).not.toContain('shown as plain text');
  });

  it('exports a computed page to PDF with its operations and parameters', async () => {
    const { space, pages } = await createComputedSpace('growthbook');
    const features = pages.find((p) => p.computed.props.page === 'features')!;
    const r = await t.api('GET', `/v1/spaces/${space.id}/pdf?page=${features.id}&only=true`, { token: org.adminToken });
    expect(r.status).toBe(200);
    const op = await operationSettled(t, r.headers.get('location'), { token: org.adminToken, timeoutMs: 150_000, what: 'the PDF export' });
    expect(op.status, JSON.stringify(op)).toBe('succeeded');
    const pdf = Buffer.from(await (await fetch(r.body.url)).arrayBuffer());
    const text = await pdfText(pdf);
    expect(text).toContain('GET /features');
    expect(text).toContain('POST /features');
    // Table cells wrap inside narrow columns; whole descriptions of parameters and fields survive.
    expect(text).toContain('Operation ID: listFeatures');
    expect(text).toContain('The number of items to return');
    expect(text).toContain('Request body (required)');
    expect(text).not.toContain('shown as plain text');
  });

  it('renders one operation of a spec for GitBook operation blocks', async () => {
    const md = await evaluateOpenAPIOperation(t.app, org.orgId, 'harbor', '/projects/{project_name_or_id}', 'GET');
    expect(md).toMatch(/^## Return specific project detail information\n\n`GET \/projects\/\{project_name_or_id\}`/);
    // Parameters given by $ref to the shared `parameters` of the description.
    expect(md).toContain('| `X-Request-Id` | header | string | no |');
    expect(md).toContain('| `project_name_or_id` | path | string | yes |');
    expect(md).toContain('| `X-Is-Resource-Name` | header | boolean | no |');
    expect(md).toContain('Response **200**');
    expect(await evaluateOpenAPIOperation(t.app, org.orgId, 'harbor', '/nope', 'get')).toContain('no operation `GET /nope`');
    expect(await evaluateOpenAPIOperation(t.app, org.orgId, 'absent', '/nope', 'get')).toContain('has no processed version yet');
  });

  it('renders GitBook OpenAPI blocks in a page as the operations they name, in the published view and the PDF', async () => {
    const r = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Guide with blocks' } });
    expect(r.status).toBe(201);
    const space = r.body.id as string;
    let pageId = '';
    await editContent(t, space, (d) => {
      pageId = d.insertPage(null, {
        title: 'Projects',
        markdown: [
          'Read a project:',
          '',
          '{% openapi-operation spec="harbor" path="/projects/{project_name_or_id}" method="get" %}',
          '{% endopenapi-operation %}',
          '',
          'And the legacy form:',
          '',
          '{% openapi src="growthbook" path="/features" method="get" %}',
          '[growthbook](growthbook)',
          '{% endopenapi %}',
          '',
          'By the URL the spec is fetched from:',
          '',
          `{% swagger src="${specs.url}/shared/${REAL.growthbook}" path="/features/{id}" method="get" %}`,
          '{% endswagger %}',
          '',
          '{% openapi-operation spec="absent" path="/nope" method="get" %}',
          '{% endopenapi-operation %}',
          '',
        ].join('\n'),
      });
    });
    await t.api('PATCH', `/v1/spaces/${space}`, { token: org.adminToken, body: { visibility: 'public' } });
    const html = await (await fetch(`${t.baseUrl}/s/${space}/projects`)).text();
    // Parameters defined by $ref in Harbor's description, and GrowthBook's query parameters.
    expect(html).toContain('X-Request-Id');
    expect(html).toContain('project_name_or_id');
    expect(html).toMatch(/<td><code>limit<\/code><\/td>\s*<td>query<\/td>/);
    expect(html).toMatch(/Operation ID: (<code>)?getFeature\b/);
    // A block naming an unknown spec keeps its method and path only.
    expect(html).toContain('<code>/nope</code>');
    expect(html).not.toContain('no processed version');

    const pdfReq = await t.api('GET', `/v1/spaces/${space}/pdf?page=${pageId}&only=true`, { token: org.adminToken });
    expect(pdfReq.status).toBe(200);
    const op = await operationSettled(t, pdfReq.headers.get('location'), {
      token: org.adminToken,
      timeoutMs: 150_000,
      what: 'the PDF export',
    });
    expect(op.status, JSON.stringify(op)).toBe('succeeded');
    const text = await pdfText(Buffer.from(await (await fetch(pdfReq.body.url)).arrayBuffer()));
    expect(text).toContain('An unique ID for the request');
    expect(text).toContain('Operation ID: getProject');
    expect(text).toContain('The number of items to return');
  });

  it('refuses a computed source it cannot compute, naming the field', async () => {
    const post = (body: object) => t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body });
    const unknown = await post({ computedSource: source('nope') });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('body.computedSource.dependencies.spec.ref.spec');
    const translation = await post({
      computedSource: { type: 'builtin:translation', props: {}, dependencies: { translation: { ref: { kind: 'translation' } } } },
    });
    expect(translation.status).toBe(400);
    expect(translation.body.error.message).toContain('body.computedSource.type');
    const noProps = await post({ computedSource: { type: 'builtin:openapi', dependencies: source('harbor').dependencies } });
    expect(noProps.status).toBe(400);
    expect(noProps.body.error.message).toContain('body.computedSource.props');
    const both = await post({ computedSource: source('harbor'), empty: true });
    expect(both.status).toBe(400);
  });

  it('a space made before its spec is processed says so, then shows the reference once it is', async () => {
    const r = await t.api('PUT', `/v1/orgs/${org.orgId}/openapi/later`, {
      token: org.adminToken,
      body: { source: { url: `${specs.url}/stall` } },
    });
    expect(r.status).toBe(201);
    const { space, pages } = await createComputedSpace('later');
    const read = await t.api('GET', `/v1/spaces/${space.id}/content/page/${pages[0].id}`, { token: org.adminToken });
    expect(read.body.markdown).toContain('has no processed version yet');
    expect(pages[0].title).toBe('later');
  });
});
