import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { processSpec, SpecParseError } from '../../../src/content/openapi.js';
import { schemaCompileCounts } from '../../../src/content/openapi-validate.js';

const fixture = (name: string) => readFile(new URL(`../../fixtures/openapi/${name}`, import.meta.url), 'utf8');
const noFetch = async (url: string): Promise<Buffer> => {
  throw new Error(`unexpected fetch of ${url}`);
};
const process = (doc: unknown) => processSpec(typeof doc === 'string' ? doc : JSON.stringify(doc), undefined, noFetch);

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

  it('rejects schema-invalid documents with a message naming the problem', async () => {
    expect(await rejection({ openapi: '3.0.3', info: { title: 'T' }, paths: {} })).toBe(
      "Invalid OpenAPI document: OpenAPI 3.0 schema validation failed: #/info must have required property 'version'",
    );
    expect(await rejection(v30({ paths: { '/a': { get: {} } } }))).toBe(
      "Invalid OpenAPI document: OpenAPI 3.0 schema validation failed: #/paths/~1a/get must have required property 'responses'",
    );
    // A oneOf (parameter or reference): the bad value and what is allowed, not the branch bookkeeping.
    const badIn = await rejection(
      v30({ paths: { '/a': { get: { parameters: [{ name: 'q', in: 'body', schema: {} }], responses: ok } } } }),
    );
    expect(badIn).toMatch(
      /^Invalid OpenAPI document: OpenAPI 3\.0 schema validation failed: #\/paths\/~1a\/get\/parameters\/0\/in must be one of "path", "query", "header", "cookie"/,
    );
    expect(badIn).not.toContain('oneOf');
    expect(badIn).not.toContain("'$ref'");

    const v31Bad = await rejection(v31({ paths: { '/a': { get: { responses: { '200': { desc: 'ok' } } } } } }));
    expect(v31Bad).toMatch(/^Invalid OpenAPI document: OpenAPI 3\.1 schema validation failed: /);
    expect(v31Bad).toContain("#/paths/~1a/get/responses/200 must have required property 'description'");
    expect(v31Bad).toContain("must NOT have unevaluated properties ('desc')");

    expect(await rejection(sw2({ paths: { '/a': { get: { responses: { '200': {} } } } } }))).toBe(
      "Invalid OpenAPI document: Swagger 2.0 schema validation failed: #/paths/~1a/get/responses/200 must have required property 'description'",
    );
    // Validated after dereferencing: a reference to the wrong kind of object is caught where it is used.
    expect(
      await rejection(
        v30({
          paths: { '/a': { get: { parameters: [{ $ref: '#/components/schemas/S' }], responses: ok } } },
          components: { schemas: { S: { type: 'string' } } },
        }),
      ),
    ).toContain("#/paths/~1a/get/parameters/0 must have required property 'name'");
    // ... and invalid parts of circular schemas too.
    expect(
      await rejection(
        v30({
          components: { schemas: { Node: { type: 'object', required: 5, properties: { kid: { $ref: '#/components/schemas/Node' } } } } },
        }),
      ),
    ).toBe('Invalid OpenAPI document: OpenAPI 3.0 schema validation failed: #/components/schemas/Node/required must be array');
  });

  it('rejects a long list of problems with a bounded message', async () => {
    const paths = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`/p${i}`, { get: {} }]));
    const msg = await rejection(v30({ paths }));
    expect(msg).toContain("#/paths/~1p0/get must have required property 'responses'");
    expect(msg).toMatch(/; and 6 more$/);
  });

  it("rejects Swagger 2.0 documents failing swagger-parser's semantic checks", async () => {
    expect(
      await rejection(
        sw2({ paths: { '/a': { get: { operationId: 'list', responses: ok } }, '/b': { get: { operationId: 'list', responses: ok } } } }),
      ),
    ).toBe("Invalid OpenAPI document: Validation failed. Duplicate operation id 'list'");
    expect(await rejection(sw2({ paths: { '/items/{id}': { get: { responses: ok } } } }))).toBe(
      'Invalid OpenAPI document: Validation failed. /paths/items/{id}/get is missing path parameter(s) for {id}',
    );
    expect(await rejection(sw2({ definitions: { A: { type: 'object', required: ['x'], properties: { y: { type: 'string' } } } } }))).toBe(
      "Invalid OpenAPI document: Validation failed. Property 'x' listed as required but does not exist in '/definitions/A'",
    );
    // Semantic checks see through circular references.
    const node = { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/definitions/Node' } } } };
    expect(
      await rejection(
        sw2({ definitions: { Node: node, Leaf: { type: 'object', required: ['z'], allOf: [{ $ref: '#/definitions/Node' }] } } }),
      ),
    ).toBe("Invalid OpenAPI document: Validation failed. Property 'z' listed as required but does not exist in '/definitions/Leaf'");
  });

  it('keeps the version checks and the earlier PARSE_ERRORs', async () => {
    expect(await rejection({ openapi: '3.2.0', info, paths: {} })).toMatch(/Unsupported OpenAPI version: 3\.2\.0/);
    expect(await rejection('swagger: 2.0\ninfo: {title: t, version: "1"}\npaths: {}\n')).toMatch(/Swagger version number must be a string/);
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
    expect(await run(204)).toBe(102); // 34 rounds of 3 valid and 3 invalid documents
    expect(compile).not.toHaveBeenCalled();
    expect(schemaCompileCounts()).toEqual({ '2.0': 1, '3.0': 1, '3.1': 1 });
  });
});
