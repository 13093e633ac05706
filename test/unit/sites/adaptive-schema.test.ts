import { describe, expect, it } from 'vitest';
import { adaptiveJsonSchema, defaultAdaptiveSchema, templateConditions } from '../../../src/sites/adaptive-schema.js';
import { assertMatchesSchema } from '../../helpers/spec.js';

const valid = [
  defaultAdaptiveSchema(),
  { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: {}, additionalProperties: false },
  {
    type: 'object',
    properties: {
      a: { type: 'boolean', description: '' },
      b: { type: 'string', enum: ['x'], description: 'B' },
      c: { type: 'number', description: 'C' },
      d: { type: 'array', items: { type: 'string', description: 'i' }, description: 'D' },
      e: { type: 'object', description: 'E', properties: { f: { type: 'string', description: 'F' } }, additionalProperties: false },
    },
    additionalProperties: false,
  },
];
const invalid = [
  { type: 'object', properties: {}, additionalProperties: true },
  { type: 'object', properties: {} },
  { type: 'array', properties: {}, additionalProperties: false },
  { type: 'object', properties: { a: { type: 'boolean' } }, additionalProperties: false },
  { type: 'object', properties: { a: { type: 'boolean', description: '', extra: 1 } }, additionalProperties: false },
  {
    type: 'object',
    properties: { a: { type: 'array', items: { type: 'array', items: {} }, description: '' } },
    additionalProperties: false,
  },
  { type: 'object', properties: { e: { type: 'object', description: '', properties: {} } }, additionalProperties: false },
  {
    type: 'object',
    properties: { unsigned: { type: 'object', description: 'x', properties: {}, additionalProperties: false } },
    additionalProperties: false,
  },
  { $schema: 'draft-04', type: 'object', properties: {}, additionalProperties: false },
];

const ajvAccepts = (doc: unknown) => {
  try {
    assertMatchesSchema('SiteAdaptiveJSONSchema', doc);
    return true;
  } catch {
    return false;
  }
};

describe('adaptive schema', () => {
  it('accepts and refuses the same documents as the description (ajv on SiteAdaptiveJSONSchema)', () => {
    for (const doc of valid) {
      expect(ajvAccepts(doc), JSON.stringify(doc)).toBe(true);
      expect(adaptiveJsonSchema.safeParse(doc).success, JSON.stringify(doc)).toBe(true);
    }
    for (const doc of invalid) {
      expect(ajvAccepts(doc), JSON.stringify(doc)).toBe(false);
      expect(adaptiveJsonSchema.safeParse(doc).success, JSON.stringify(doc)).toBe(false);
    }
  });

  it('generates conditions for booleans, enums and arrays of enums, quoting odd claim names', () => {
    const items = templateConditions({
      type: 'object',
      properties: { 'odd-name': { type: 'boolean', description: 'Odd' }, n: { type: 'number', description: 'N' } },
      additionalProperties: false,
    });
    expect(items).toEqual([{ description: 'Odd is true', condition: 'visitor.claims["odd-name"] == true' }]);
  });
});
