import { describe, expect, it } from 'vitest';
import { openapiOperationMarkdown, openapiReferenceMarkdown, referenceGroups } from '../../../src/content/openapi-render.js';

const info = { title: 'T', version: '1.2' };

const doc = {
  openapi: '3.0.3',
  info: { ...info, description: '# Welcome\n\nText.' },
  tags: [{ name: 'pets', 'x-displayName': 'Pets', description: 'All about pets.' }],
  paths: {
    '/pets/{id}': {
      parameters: [{ $ref: '#/components/parameters/Id' }],
      get: {
        tags: ['pets'],
        summary: 'Get a pet',
        description: '## Details\n\n```\n# not a heading\n```',
        parameters: [
          { name: 'fields', in: 'query', schema: { type: 'array', items: { type: 'string' } }, description: 'Fields | to show' },
        ],
        responses: {
          '200': { $ref: '#/components/responses/Pet' },
          default: { description: 'error' },
        },
      },
      put: { $ref: '#/components/x-ops/Put' }, // a $ref where the specification allows none
    },
    '/ping': { get: { responses: { '204': {} } } }, // no description: still shown
  },
  components: {
    parameters: { Id: { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } } },
    responses: { Pet: { description: 'The pet', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } },
    schemas: {
      Pet: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', description: 'Its name' },
          kind: { type: 'string', enum: ['cat', 'dog'] },
          parent: { $ref: '#/components/schemas/Pet' }, // a cycle
          tags: { type: 'array' }, // no items
        },
      },
    },
    'x-ops': {
      Put: {
        tags: ['pets'],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } },
        responses: { '200': { description: 'ok' } },
      },
    },
  },
};

describe('openapiReferenceMarkdown', () => {
  it('lists every operation with path-level and $ref parameters, bodies and responses', () => {
    const md = openapiReferenceMarkdown(doc);
    expect(md).toContain('## Pets\n\nAll about pets.');
    expect(md).toContain('### Get a pet\n\n`GET /pets/{id}`');
    expect(md).toContain('| `id` | path | string (uuid) | yes |  |');
    expect(md).toContain('| `fields` | query | array of string | no | Fields \\| to show |');
    expect(md).toContain('Response **200**: The pet');
    expect(md).toContain('| `name` | string | yes | Its name |');
    expect(md).toMatch(/\| `kind` \| string \| no \| \(one of `"cat"`, `"dog"`\) \|/);
    expect(md).toContain('| `parent` | Pet (object) | no |  |');
    expect(md).not.toContain('parent.name'); // the cycle is named, not expanded
    expect(md).toContain('| `tags` | array of any | no |  |');
    // The operation given by $ref, and its request body (the second use of Pet points to the first).
    expect(md).toContain('`PUT /pets/{id}`');
    expect(md).toContain('**Request body** (required)');
    expect(md).toContain('Fields of `Pet`: as listed for `GET /pets/{id}` above.');
    expect(md).toContain('## Other operations\n\n### GET /ping');
    expect(md).toContain('Response **204**');
    // Headings of descriptions nest under what they describe; code blocks are left alone.
    expect(md).toContain('## Welcome');
    expect(md).toContain('#### Details');
    expect(md).toContain('```\n# not a heading\n```');
  });

  it('renders the parts of a reference split by tag, and one operation', () => {
    expect(referenceGroups(doc)).toEqual([
      { key: 'pets', title: 'Pets' },
      { key: '', title: 'Other operations' },
    ]);
    const overview = openapiReferenceMarkdown(doc, { part: { doc: 'info' } });
    expect(overview).toContain('Version: `1.2`');
    expect(overview).toContain('- Pets: 2 operations');
    expect(overview).not.toContain('GET /pets');
    const pets = openapiReferenceMarkdown(doc, { part: { doc: 'tag', page: 'pets' } });
    expect(pets).toContain('## Get a pet');
    expect(pets).not.toContain('/ping');
    expect(openapiReferenceMarkdown(doc, { part: { doc: 'tag', page: '' } })).toContain('`GET /ping`');
    expect(openapiReferenceMarkdown(doc, { part: { doc: 'tag', page: 'gone' } })).toContain('no operations tagged `gone`');
    expect(openapiReferenceMarkdown(doc, { part: { doc: 'models' } })).toContain('## Pet');
    const one = openapiOperationMarkdown(doc, '/pets/{id}', 'PUT');
    expect(one).toContain('## PUT /pets/{id}');
    expect(one).toContain('**Request body** (required)');
    expect(openapiOperationMarkdown(doc, '/nope', 'get')).toContain('no operation `GET /nope`');
  });

  it('reads Swagger 2.0 body and formData parameters', () => {
    const md = openapiReferenceMarkdown({
      swagger: '2.0',
      info,
      host: 'api.test',
      basePath: '/v2',
      paths: {
        '/up': {
          post: {
            parameters: [
              { name: 'b', in: 'body', required: true, schema: { type: 'object', properties: { x: { type: 'integer' } } } },
              { name: 'file', in: 'formData', type: 'file' },
            ],
            responses: { '200': { description: 'ok', schema: { type: 'array', items: { type: 'string' } } } },
          },
        },
      },
    });
    expect(md).toContain('- `https://api.test/v2`');
    expect(md).toContain('**Request body** (required): object');
    expect(md).toContain('| `x` | integer | no |  |');
    expect(md).toContain('| `file` | formData | file | no |  |');
    expect(md).toContain('Body: array of string');
  });

  it('keeps a huge description within the page limits by showing less schema detail, never fewer operations', () => {
    const props = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`field${i}`, { type: 'string', description: 'x'.repeat(150) }]));
    const paths = Object.fromEntries(
      Array.from({ length: 400 }, (_, i) => [
        `/r${i}`,
        {
          get: {
            responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: props } } } } },
          },
        },
      ]),
    );
    const md = openapiReferenceMarkdown({ openapi: '3.0.3', info, paths });
    expect(md.length).toBeLessThanOrEqual(250_000);
    for (let i = 0; i < 400; i++) expect(md).toContain(`\`GET /r${i}\``);
  });

  it('reads hostile and broken descriptions without blowing up', () => {
    // An allOf naming itself sixteen times, and alternatives of alternatives.
    const self = { $ref: '#/components/schemas/Loop' };
    const alt = (n: number): unknown => (n === 0 ? { type: 'string' } : { oneOf: Array.from({ length: 8 }, () => alt(n - 1)) });
    const hostile = {
      openapi: '3.1.0',
      info,
      paths: {
        '/loop': { get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema: self } } } } } },
        '/alt': { get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema: alt(6) } } } } } },
        '/junk': { get: { parameters: 'nope', responses: ['x'] }, post: null, parameters: [null, 5, { $ref: '#/nowhere' }] },
        '/refchain': { $ref: '#/paths/~1refchain' },
      },
      components: {
        schemas: {
          Loop: { allOf: Array.from({ length: 16 }, () => self), properties: { a: self, b: { type: 'array', items: self } } },
        },
      },
    };
    const md = openapiReferenceMarkdown(hostile, { models: true });
    expect(md).toContain('`GET /loop`');
    expect(md).toContain('`GET /alt`');
    expect(md).toContain('`GET /junk`');
    expect(md.length).toBeLessThan(250_000);
    expect(openapiReferenceMarkdown(null)).toContain('not an object');
    expect(openapiReferenceMarkdown({ openapi: '3.0.0', paths: 5 })).toContain('Version: `unknown`');
  });
});
