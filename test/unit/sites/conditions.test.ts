import { describe, expect, it } from 'vitest';
import { conditionError, evaluateCondition, parseCondition } from '../../../src/sites/conditions.js';

const ctx = {
  visitor: { claims: { plan: 'pro', isBeta: true, products: ['a', 'c'], role: 'admin', count: 3, unsigned: { lang: 'fr' } } },
  space: { vars: { env: 'prod' } },
  page: {},
};

describe('condition interpreter', () => {
  it('evaluates the expressions GitBook users write', () => {
    const yes = [
      '',
      '   ',
      'visitor.claims.isBeta == true',
      'visitor.claims.plan == "pro" && visitor.claims.products.includes("a")',
      'visitor.claims.products.includes("b") || visitor.claims.role.startsWith("ad")',
      'visitor.claims.count >= 3 && visitor.claims.count < 4',
      '!visitor.claims.missing',
      'visitor.claims.unsigned.lang === "fr"',
      'visitor.claims.missing ?? true',
      'visitor.claims.plan != "free" ? true : false',
      '["pro", "team"].includes(visitor.claims.plan)',
      'visitor.claims["plan"].toUpperCase() == "PRO"',
      'space.vars.env == "prod"',
      'visitor.claims.products.length == 2',
    ];
    for (const e of yes) expect(evaluateCondition(e, ctx), e).toBe(true);
    expect(evaluateCondition(null, ctx)).toBe(true);
    const no = ['visitor.claims.plan == "free"', 'visitor.claims.products.includes("b")', 'visitor.claims.count > "2"'];
    for (const e of no) expect(evaluateCondition(e, ctx), e).toBe(false);
  });

  it('is false for anything outside the whitelist or failing, and never runs code', () => {
    const hostile = [
      'visitor.constructor.constructor("return process")()',
      'visitor["__proto__"]',
      'visitor.claims.__proto__ == null',
      'process.exit(1)',
      'globalThis',
      'this',
      'visitor.claims.plan.constructor',
      'visitor.claims.missing.deeper == 1',
      'visitor.claims.products.map(1)',
      'visitor.claims.plan.includes(visitor.claims)',
      'visitor.claims.plan ==',
      '(',
    ];
    for (const e of hostile) expect(evaluateCondition(e, ctx), e).toBe(false);
  });

  it('reports syntax errors with their position, and refuses syntax it would never evaluate', () => {
    expect(conditionError('visitor.claims.plan == "pro"')).toBeNull();
    expect(conditionError('visitor.claims.plan ==')).toMatch(/character 22/);
    expect(conditionError('a = 1')).not.toBeNull();
    expect(conditionError('a; b')).not.toBeNull();
    expect(conditionError('x'.repeat(1025))).not.toBeNull();
    expect(parseCondition('')).toBeNull();
  });

  it('bounds the work of one expression', () => {
    const long = Array.from({ length: 300 }, () => 'visitor.claims.isBeta').join(' && ');
    expect(long.length).toBeLessThan(8000);
    expect(conditionError(long)).not.toBeNull();
    expect(evaluateCondition(long, ctx)).toBe(false);
  });
});
