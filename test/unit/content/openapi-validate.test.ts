import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { processSpec, SpecParseError } from '../../../src/content/openapi.js';
import { schemaCompileCounts } from '../../../src/content/openapi-validate.js';
import { OPENAPI_FIXTURES, TEST_FIXTURES, requireFixtures } from '../../helpers/fixtures.js';

const fixture = (name: string) => readFile(path.join(TEST_FIXTURES, 'openapi', name), 'utf8');
const noFetch = async (url: string): Promise<Buffer> => {
  throw new Error(`unexpected fetch of ${url}`);
};
const process = (doc: unknown) => processSpec(typeof doc === 'string' ? doc : JSON.stringify(doc), undefined, noFetch);

/** What processSpec accepted `doc` with: its warnings as `CODE message`. */
async function warningsOf(doc: unknown): Promise<string[]> {
  return (await process(doc)).warnings.map((w) => `${w.code} ${w.message}`);
}

/** The PARSE_ERROR message processSpec rejects `doc` with. */
async function rejection(doc: unknown): Promise<string> {
  const err = await process(doc).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SpecParseError);
  return (err as SpecParseError).message;
}

const info = { title: 'T', version: '1' };
const ok = { '200': { description: 'ok' } };

const v30 = (extra: object) => ({ openapi: '3.0.3', info, paths: {}, ...extra });
const v31 = (extra: object) => ({ openapi: '3.1.0', info, paths: {}, ...extra });
const sw2 = (extra: object) => ({ swagger: '2.0', info, paths: {}, ...extra });

describe('processSpec validation', () => {
  it('accepts OpenAPI 3.0, 3.1 and Swagger 2.0 documents and stores them bundled, not dereferenced', async () => {
    const petstore = await process(await fixture('petstore.yaml'));
    expect(petstore).toMatchObject({ openapi: '3.0.3', title: 'Petstore' });
    // Validation dereferences a copy: the stored document keeps its internal refs.
    expect(JSON.stringify(petstore.bundled)).toContain('"$ref":"#/components/schemas/Pet"');

    expect(await process(await fixture('v31.json'))).toMatchObject({ openapi: '3.1.0', title: 'Modern API', apiVersion: '3.0.0' });
    expect(await process(await fixture('swagger2.json'))).toMatchObject({ openapi: '2.0', title: 'Legacy API', apiVersion: '2.1' });
    // 3.1 without paths but with webhooks, and 3.0.4.
    await expect(process({ openapi: '3.1.1', info, webhooks: { hook: { post: { responses: ok } } } })).resolves.toMatchObject({
      openapi: '3.1.1',
    });
    await expect(process({ openapi: '3.0.4', info, paths: {} })).resolves.toMatchObject({ openapi: '3.0.4' });
  });

  it('accepts circular schemas in every version', async () => {
    const node = (ref: string) => ({ type: 'object', properties: { kids: { type: 'array', items: { $ref: ref } } } });
    const r30 = await process(
      v30({
        paths: {
          '/tree': {
            get: {
              responses: {
                '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } },
              },
            },
          },
        },
        components: { schemas: { Node: node('#/components/schemas/Node') } },
      }),
    );
    expect(JSON.stringify(r30.bundled)).toContain('#/components/schemas/Node');
    await expect(process(v31({ components: { schemas: { Node: node('#/components/schemas/Node') } } }))).resolves.toMatchObject({
      openapi: '3.1.0',
    });
    await expect(
      process(
        sw2({
          paths: { '/tree': { post: { parameters: [{ name: 'b', in: 'body', schema: { $ref: '#/definitions/Node' } }], responses: ok } } },
          definitions: { Node: { ...node('#/definitions/Node'), required: ['kids'] } },
        }),
      ),
    ).resolves.toMatchObject({ openapi: '2.0' });
  });

  it('accepts schema-invalid documents, with one warning naming each problem', async () => {
    expect(await warningsOf({ openapi: '3.0.3', info: { title: 'T' }, paths: {} })).toEqual([
      "SCHEMA_VALIDATION OpenAPI 3.0 schema: #/info must have required property 'version'",
    ]);
    expect(await warningsOf(v30({ paths: { '/a': { get: {} } } }))).toEqual([
      "SCHEMA_VALIDATION OpenAPI 3.0 schema: #/paths/~1a/get must have required property 'responses'",
    ]);
    // A oneOf (parameter or reference): the bad value and what is allowed, not the branch bookkeeping.
    const badIn = await warningsOf(
      v30({ paths: { '/a': { get: { parameters: [{ name: 'q', in: 'body', schema: {} }], responses: ok } } } }),
    );
    expect(badIn[0]).toMatch(
      /^SCHEMA_VALIDATION OpenAPI 3\.0 schema: #\/paths\/~1a\/get\/parameters\/0\/in must be one of "path", "query", "header", "cookie"/,
    );
    expect(badIn.join('\n')).not.toContain('oneOf');
    expect(badIn.join('\n')).not.toContain("'$ref'");

    const v31Bad = await warningsOf(v31({ paths: { '/a': { get: { responses: { '200': { desc: 'ok' } } } } } }));
    expect(v31Bad).toContain(
      "SCHEMA_VALIDATION OpenAPI 3.1 schema: #/paths/~1a/get/responses/200 must have required property 'description'",
    );
    expect(v31Bad.join('\n')).toContain("must NOT have unevaluated properties ('desc')");

    expect(await warningsOf(sw2({ paths: { '/a': { get: { responses: { '200': {} } } } } }))).toEqual([
      "SCHEMA_VALIDATION Swagger 2.0 schema: #/paths/~1a/get/responses/200 must have required property 'description'",
    ]);
    // An array without items (one of Stripe's published descriptions has one).
    const noItems = await warningsOf(
      sw2({ paths: { '/a': { get: { parameters: [{ name: 'ids', in: 'query', type: 'array' }], responses: ok } } } }),
    );
    expect(noItems).toEqual([
      'SPEC_VALIDATION Validation failed. /paths/a/get/parameters/ids is an array, so it must include an "items" schema',
    ]);
    // Validated after dereferencing: a reference to the wrong kind of object is caught where it is used.
    expect(
      await warningsOf(
        v30({
          paths: { '/a': { get: { parameters: [{ $ref: '#/components/schemas/S' }], responses: ok } } },
          components: { schemas: { S: { type: 'string' } } },
        }),
      ),
    ).toContain("SCHEMA_VALIDATION OpenAPI 3.0 schema: #/paths/~1a/get/parameters/0 must have required property 'name'");
    // ... and invalid parts of circular schemas too.
    expect(
      await warningsOf(
        v30({
          components: { schemas: { Node: { type: 'object', required: 5, properties: { kid: { $ref: '#/components/schemas/Node' } } } } },
        }),
      ),
    ).toEqual(['SCHEMA_VALIDATION OpenAPI 3.0 schema: #/components/schemas/Node/required must be array']);
    // The stored document is the bundled one, as written.
    const kept = await process(v30({ paths: { '/a': { get: {} } } }));
    expect(kept.bundled).toEqual(v30({ paths: { '/a': { get: {} } } }));
  });

  it('lists every problem of a long list', async () => {
    const paths = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`/p${i}`, { get: {} }]));
    const all = await warningsOf(v30({ paths }));
    expect(all).toHaveLength(10);
    expect(all).toContain("SCHEMA_VALIDATION OpenAPI 3.0 schema: #/paths/~1p0/get must have required property 'responses'");
  });

  it("records Swagger 2.0 documents failing swagger-parser's semantic checks as a warning", async () => {
    expect(
      await warningsOf(
        sw2({ paths: { '/a': { get: { operationId: 'list', responses: ok } }, '/b': { get: { operationId: 'list', responses: ok } } } }),
      ),
    ).toEqual(["SPEC_VALIDATION Validation failed. Duplicate operation id 'list'"]);
    expect(await warningsOf(sw2({ paths: { '/items/{id}': { get: { responses: ok } } } }))).toEqual([
      'SPEC_VALIDATION Validation failed. /paths/items/{id}/get is missing path parameter(s) for {id}',
    ]);
    expect(
      await warningsOf(sw2({ definitions: { A: { type: 'object', required: ['x'], properties: { y: { type: 'string' } } } } })),
    ).toEqual(["SPEC_VALIDATION Validation failed. Property 'x' listed as required but does not exist in '/definitions/A'"]);
    // Semantic checks see through circular references.
    const node = { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/definitions/Node' } } } };
    expect(
      await warningsOf(
        sw2({ definitions: { Node: node, Leaf: { type: 'object', required: ['z'], allOf: [{ $ref: '#/definitions/Node' }] } } }),
      ),
    ).toEqual(["SPEC_VALIDATION Validation failed. Property 'z' listed as required but does not exist in '/definitions/Leaf'"]);
  });

  it('reads version numbers written as YAML numbers as the strings meant, with a warning', async () => {
    const r = await process('swagger: 2.0\ninfo: {title: t, version: 1.0}\npaths: {}\n');
    expect(r).toMatchObject({ openapi: '2.0', apiVersion: '1.0' });
    expect(r.warnings.map((w) => w.message)).toEqual([
      '#/swagger must be a string; read as "2.0"',
      '#/info/version must be a string; read as "1.0"',
    ]);
  });

  it('processes the real GrowthBook description (multi-file, 119 responses without a description) with warnings', async () => {
    const root = pathToFileURL(`${requireFixtures(path.join(OPENAPI_FIXTURES, 'growthbook-rest-api'))}/`);
    const text = await readFile(new URL('openapi.yaml', root), 'utf8');
    const r = await processSpec(text, 'http://specs.test/openapi.yaml', (url) => readFile(new URL(new URL(url).pathname.slice(1), root)));
    expect(r).toMatchObject({ openapi: '3.1.0', title: 'GrowthBook REST API' });
    const missing = r.warnings.filter((w) => w.message.endsWith("must have required property 'description'"));
    expect(missing.length).toBeGreaterThanOrEqual(100);
    expect(Object.keys((r.bundled as any).paths).length).toBe(71);
  });

  it('keeps the version checks and the earlier PARSE_ERRORs', async () => {
    expect(await rejection({ openapi: '3.2.0', info, paths: {} })).toMatch(/Unsupported OpenAPI version: 3\.2\.0/);
    expect(await rejection('hello: world')).toBe('The document has no "openapi" or "swagger" version field');
    expect(await rejection(await fixture('invalid.yaml'))).toMatch(/^Could not resolve references: Missing \$ref pointer/);
  });
});

describe('validator compilation', () => {
  // The Ajv classes swagger-parser uses (ajv-draft-04 for 2.0/3.0, ajv/dist/2020 for 3.1) share this core.
  const requireFromParser = createRequire(createRequire(import.meta.url).resolve('@apidevtools/swagger-parser'));
  const AjvCore = requireFromParser('ajv/dist/core').default;
  afterEach(() => vi.restoreAllMocks());

  it('compiles each OpenAPI schema once per process, not once per document', async () => {
    const docs = [
      await fixture('petstore.yaml'),
      await fixture('v31.json'),
      await fixture('swagger2.json'),
      JSON.stringify({ openapi: '3.0.3', info: { title: 'T' }, paths: {} }),
      JSON.stringify({ openapi: '3.1.0', info, paths: { '/a': { get: { responses: { '200': {} } } } } }),
      JSON.stringify({ swagger: '2.0', info, paths: { '/a/{id}': { get: { responses: ok } } } }),
    ];
    const run = async (n: number) => {
      let accepted = 0;
      for (let i = 0; i < n; i++) {
        if (
          await process(docs[i % docs.length]).then(
            () => true,
            () => false,
          )
        )
          accepted++;
      }
      return accepted;
    };
    await run(docs.length); // every version seen at least once
    const compile = vi.spyOn(AjvCore.prototype, 'compile');
    expect(await run(204)).toBe(204); // 34 rounds of 3 valid and 3 schema-invalid documents, all accepted
    expect(compile).not.toHaveBeenCalled();
    expect(schemaCompileCounts()).toEqual({ '2.0': 1, '3.0': 1, '3.1': 1 });
  });
});
