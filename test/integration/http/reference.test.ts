// The server describes itself: GET /openapi.json is a valid OpenAPI 3.1 document listing every
// route, and GET /docs renders it in a real browser from files served by the server itself.
import { describe, expect, it } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import { useTestApp } from '../../helpers/app.js';
import { apiRoutes } from '../../../src/routes/index.js';
import { openapiPath } from '../../../src/http/describe.js';
import { launchBrowser } from '../../helpers/browser.js';

const { t } = useTestApp();

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document with every route, its parameters, bodies and the error shape', async () => {
    const r = await t.api('GET', '/openapi.json');
    expect(r.status).toBe(200);
    const doc = r.body;
    expect(doc.openapi).toBe('3.1.0');
    await SwaggerParser.validate(structuredClone(doc));

    const expected = [
      ...apiRoutes.map((x) => [x.method, x.path] as const),
      ['GET', '/healthz'],
      ['GET', '/readyz'],
      ['GET', '/metrics'],
      ['GET', '/openapi.json'],
      ['GET', '/docs'],
    ] as const;
    for (const [method, path] of expected) {
      const op = doc.paths[openapiPath(path).path]?.[method.toLowerCase()];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.responses['404'] ?? op.responses['2XX']).toBeDefined();
    }
    const ids = Object.values(doc.paths).flatMap((p: any) => Object.values(p).map((o: any) => o.operationId));
    expect(new Set(ids).size).toBe(ids.length);

    // Parameters and bodies come from the routes' own schemas.
    const post = doc.paths['/v1/spaces/{spaceId}/comments'].post;
    expect(post.parameters).toContainEqual(expect.objectContaining({ name: 'spaceId', in: 'path', required: true }));
    expect(post.parameters).toContainEqual(expect.objectContaining({ name: 'format', in: 'query', required: false }));
    expect(post.requestBody.content['application/json'].schema.required).toContain('body');
    const list = doc.paths['/v1/orgs/{organizationId}/spaces'].get;
    expect(list.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['organizationId', 'page', 'limit']));
    expect(doc.components.schemas.Error.properties.error.required).toEqual(['code', 'message']);
    expect(post.responses['400'].$ref).toBe('#/components/responses/Error400');
    // Token-free routes say so; the rest need the bearer token.
    expect(doc.paths['/healthz'].get.security).toEqual([]);
    expect(doc.security).toEqual([{ bearer: [] }]);
    expect(doc.info.description).toContain('HEAD');
  });
});

describe('GET /docs', () => {
  it('renders the reference in Chromium from assets served by this server, every operation listed', async () => {
    const page = await t.api('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/); // no CDN
    expect((await t.api('GET', '/docs/assets/nope.js')).status).toBe(404);

    const browser = await launchBrowser();
    try {
      const tab = await browser.newPage();
      const outside: string[] = [];
      tab.on('request', (req) => {
        if (!req.url().startsWith(t.baseUrl) && !req.url().startsWith('data:')) outside.push(req.url());
      });
      await tab.goto(`${t.baseUrl}/docs`, { waitUntil: 'networkidle0' });
      // Swagger UI renders only the operations near the viewport (past ~130 operations the first
      // screen holds only the first few): scroll down as a reader would, collecting every operation
      // and tag that comes into view, until the bottom of the page.
      const seenOps = new Set<string>();
      const seenTags = new Set<string>();
      for (let step = 0; step < 2000; step++) {
        const view = await tab.evaluate(() => {
          const ops = [...document.querySelectorAll('.opblock')].map((e) => e.id);
          const tagNames = [...document.querySelectorAll('.opblock-tag')].map((e) => e.getAttribute('data-tag') ?? e.textContent ?? '');
          const atBottom = window.scrollY + window.innerHeight >= document.body.scrollHeight - 2;
          window.scrollBy(0, Math.floor(window.innerHeight / 2));
          return { ops, tagNames, atBottom };
        });
        view.ops.forEach((id) => seenOps.add(id));
        view.tagNames.forEach((n) => seenTags.add(n));
        if (view.atBottom && seenOps.size >= apiRoutes.length) break;
        await new Promise((r) => setTimeout(r, view.atBottom ? 250 : 50));
      }
      const tags = [...seenTags];
      expect(tags.join(' ')).toContain('Comments');
      expect(seenOps.size, tags.join(' | ')).toBeGreaterThanOrEqual(apiRoutes.length);
      expect([...seenOps].filter((id) => id.startsWith('operations-Comments-')).length).toBeGreaterThan(5);
      expect(outside).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
