import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { z } from 'zod';
import { route, okJson, type Reply, type RouteDef } from '../http/route.js';
import { describeRoutes } from '../http/describe.js';
import { notFound } from '../core/errors.js';

// GET /openapi.json (this server's own description, generated from the route table) and GET /docs
// (a readable reference rendered by swagger-ui-dist, served from node_modules: no CDN, no inline
// script, so a strict Content-Security-Policy holds).

const require = createRequire(import.meta.url);
const uiDir = () => path.dirname(require.resolve('swagger-ui-dist/package.json'));

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: new URL('../openapi.json', document.baseURI).href,
    dom_id: '#reference',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference</title>
<base href="/docs/">
<link rel="icon" type="image/png" href="assets/favicon-32x32.png">
<link rel="stylesheet" href="assets/swagger-ui.css">
</head>
<body>
<noscript><p>The reference needs JavaScript; the raw description is at <a href="/openapi.json">/openapi.json</a>.</p></noscript>
<main id="reference"></main>
<script src="assets/swagger-ui-bundle.js"></script>
<script src="assets/swagger-ui-standalone-preset.js"></script>
<script src="assets/init.js"></script>
</body>
</html>
`;

const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

export function referenceRoutes(allRoutes: () => RouteDef[]): RouteDef[] {
  let described: string | null = null;
  const assets = new Map<string, Buffer>();
  return [
    route({
      method: 'GET',
      path: '/openapi.json',
      auth: false,
      tag: 'System',
      summary: 'This server’s OpenAPI 3.1 description',
      handler: async ({ app }) => {
        described ??= JSON.stringify(
          describeRoutes(allRoutes(), { title: 'Docs platform API', version: '1', serverUrl: app.config.publicUrl }),
        );
        return okJson(described);
      },
    }),
    route({
      method: 'GET',
      path: '/docs',
      auth: false,
      tag: 'System',
      summary: 'The API reference, readable in a browser',
      handler: async (): Promise<Reply> => ({
        status: 200,
        body: PAGE,
        headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CSP, 'cache-control': 'no-cache' },
      }),
    }),
    route({
      method: 'GET',
      path: '/docs/assets/:file',
      auth: false,
      tag: 'System',
      summary: 'Static files of the API reference',
      params: { file: z.string().regex(/^[\w.-]{1,64}$/) },
      handler: async ({ params }): Promise<Reply> => {
        const headers = { 'cache-control': 'public, max-age=3600' };
        if (params.file === 'init.js')
          return { status: 200, body: INIT_JS, headers: { ...headers, 'content-type': ASSETS['swagger-ui-bundle.js'] } };
        const type = ASSETS[params.file];
        if (!type) throw notFound(`No asset "${params.file}"`);
        let bytes = assets.get(params.file);
        if (!bytes) {
          bytes = await readFile(path.join(uiDir(), params.file));
          assets.set(params.file, bytes);
        }
        return { status: 200, body: bytes, headers: { ...headers, 'content-type': type } };
      },
    }),
  ];
}
