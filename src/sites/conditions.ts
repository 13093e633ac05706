// Conditions of sections, site spaces (and later header links and pages): JavaScript-like
// expressions such as `visitor.claims.plan == "pro" && visitor.claims.products.includes("a")`.
// They are parsed with jsep, which only builds an ESTree-like syntax tree, and evaluated by the
// whitelist interpreter below over plain JSON: never eval, Function or vm. Semantics follow
// GitBook's: an empty expression is true, any error (unknown node, missing value, budget) is false.
import jsep from 'jsep';

jsep.addBinaryOp('??', 1);

/** Longest accepted expression (the description's `Expression` maxLength). */
export const MAX_CONDITION_LENGTH = 1024;
/** Most syntax-tree nodes one evaluation visits. */
const NODE_BUDGET = 500;
const ROOTS = new Set(['visitor', 'space', 'page']);
const BLOCKED = new Set(['__proto__', 'prototype', 'constructor']);
const STRING_METHODS = new Set(['includes', 'startsWith', 'endsWith', 'toLowerCase', 'toUpperCase', 'trim']);
const ARRAY_METHODS = new Set(['includes']);

export class ConditionSyntaxError extends Error {
  constructor(
    message: string,
    readonly index: number,
  ) {
    super(message);
    this.name = 'ConditionSyntaxError';
  }
}

type Node = jsep.Expression;

function visitAll(node: Node, fn: (n: Node) => void, depth = 0): void {
  if (depth > 100) throw new ConditionSyntaxError('Expression is nested too deeply', 0);
  fn(node);
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const v of value) if (v && typeof v === 'object' && 'type' in v) visitAll(v as Node, fn, depth + 1);
    } else if (value && typeof value === 'object' && 'type' in value) visitAll(value as Node, fn, depth + 1);
  }
}

const ALLOWED_NODES = new Set([
  'Literal',
  'Identifier',
  'MemberExpression',
  'UnaryExpression',
  'BinaryExpression',
  'LogicalExpression',
  'ConditionalExpression',
  'ArrayExpression',
  'CallExpression',
]);

/**
 * Parse an expression; throws ConditionSyntaxError (with the character position) when jsep cannot
 * parse it, or when it uses syntax the interpreter never evaluates (so writers learn on write).
 */
export function parseCondition(expression: string): Node | null {
  if (expression.length > MAX_CONDITION_LENGTH)
    throw new ConditionSyntaxError(`Expression is longer than ${MAX_CONDITION_LENGTH} characters`, MAX_CONDITION_LENGTH);
  if (!expression.trim()) return null;
  let ast: Node;
  try {
    ast = jsep(expression);
  } catch (err) {
    const e = err as { description?: string; message?: string; index?: number };
    throw new ConditionSyntaxError(e.description ?? e.message ?? 'Syntax error', typeof e.index === 'number' ? e.index : 0);
  }
  let nodes = 0;
  visitAll(ast, (n) => {
    nodes++;
    if (!ALLOWED_NODES.has(n.type)) throw new ConditionSyntaxError(`${n.type} is not allowed in a condition`, 0);
    if (n.type === 'Compound') throw new ConditionSyntaxError('Only one expression is allowed', 0);
  });
  if (nodes > NODE_BUDGET) throw new ConditionSyntaxError(`Expression has more than ${NODE_BUDGET} parts`, 0);
  return ast;
}

/** The position-bearing message a 400 shows for a condition jsep rejects; null when valid. */
export function conditionError(expression: string): string | null {
  try {
    parseCondition(expression);
    return null;
  } catch (err) {
    if (err instanceof ConditionSyntaxError) return `${err.message} (at character ${err.index})`;
    throw err;
  }
}

class EvalError extends Error {}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isPlainObject(v: unknown): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function member(obj: unknown, key: unknown): unknown {
  if (typeof key !== 'string' && typeof key !== 'number') throw new EvalError('bad key');
  const k = String(key);
  if (BLOCKED.has(k)) throw new EvalError('blocked key');
  if (Array.isArray(obj)) {
    if (k === 'length') return obj.length;
    return /^\d+$/.test(k) ? obj[Number(k)] : undefined;
  }
  if (typeof obj === 'string') return k === 'length' ? obj.length : undefined;
  if (isPlainObject(obj)) return Object.hasOwn(obj, k) ? obj[k] : undefined;
  return undefined;
}

function evaluate(node: Node, ctx: Record<string, unknown>, budget: { n: number }): unknown {
  if (--budget.n < 0) throw new EvalError('budget');
  switch (node.type) {
    case 'Literal':
      return (node as jsep.Literal).value;
    case 'Identifier': {
      const name = (node as jsep.Identifier).name;
      if (!ROOTS.has(name)) throw new EvalError(`unknown identifier ${name}`);
      return Object.hasOwn(ctx, name) ? ctx[name] : undefined;
    }
    case 'MemberExpression': {
      const m = node as jsep.MemberExpression;
      const obj = evaluate(m.object, ctx, budget);
      const key = m.computed ? evaluate(m.property, ctx, budget) : (m.property as jsep.Identifier).name;
      if (obj === undefined || obj === null) {
        if ((m as { optional?: boolean }).optional) return undefined;
        throw new EvalError('member of nothing');
      }
      return member(obj, key);
    }
    case 'UnaryExpression': {
      const u = node as jsep.UnaryExpression;
      const v = evaluate(u.argument, ctx, budget);
      if (u.operator === '!') return !v;
      if (u.operator === '-' && typeof v === 'number') return -v;
      if (u.operator === '+' && typeof v === 'number') return v;
      throw new EvalError('unary');
    }
    case 'BinaryExpression':
    case 'LogicalExpression': {
      const b = node as jsep.BinaryExpression;
      if (b.operator === '&&') return evaluate(b.left, ctx, budget) && evaluate(b.right, ctx, budget);
      if (b.operator === '||') return evaluate(b.left, ctx, budget) || evaluate(b.right, ctx, budget);
      if (b.operator === '??') return evaluate(b.left, ctx, budget) ?? evaluate(b.right, ctx, budget);
      const l = evaluate(b.left, ctx, budget);
      const r = evaluate(b.right, ctx, budget);
      switch (b.operator) {
        // Loose equality only between primitives, where it cannot call user code.
        case '==':
          return l === r || (l == null && r == null) || (isPrimitive(l) && isPrimitive(r) && l == r);
        case '!=':
          return !(l === r || (l == null && r == null) || (isPrimitive(l) && isPrimitive(r) && l == r));
        case '===':
          return l === r;
        case '!==':
          return l !== r;
        case '<':
        case '<=':
        case '>':
        case '>=':
          return compare(b.operator, l, r);
        default:
          throw new EvalError(`operator ${b.operator}`);
      }
    }
    case 'ConditionalExpression': {
      const c = node as jsep.ConditionalExpression;
      return evaluate(c.test, ctx, budget) ? evaluate(c.consequent, ctx, budget) : evaluate(c.alternate, ctx, budget);
    }
    case 'ArrayExpression':
      return (node as jsep.ArrayExpression).elements.map((e) => (e ? evaluate(e, ctx, budget) : undefined));
    case 'CallExpression': {
      const call = node as jsep.CallExpression;
      if (call.callee.type !== 'MemberExpression') throw new EvalError('call');
      const callee = call.callee as jsep.MemberExpression;
      const name = callee.computed ? evaluate(callee.property, ctx, budget) : (callee.property as jsep.Identifier).name;
      const target = evaluate(callee.object, ctx, budget);
      const args = call.arguments.map((a) => evaluate(a, ctx, budget));
      if (!args.every(isPrimitive)) throw new EvalError('arguments');
      if (typeof target === 'string' && typeof name === 'string' && STRING_METHODS.has(name)) {
        switch (name) {
          case 'includes':
            return target.includes(String(args[0]));
          case 'startsWith':
            return target.startsWith(String(args[0]));
          case 'endsWith':
            return target.endsWith(String(args[0]));
          case 'toLowerCase':
            return target.toLowerCase();
          case 'toUpperCase':
            return target.toUpperCase();
          case 'trim':
            return target.trim();
        }
      }
      if (Array.isArray(target) && typeof name === 'string' && ARRAY_METHODS.has(name)) return target.includes(args[0]);
      throw new EvalError('method');
    }
    default:
      throw new EvalError(`node ${node.type}`);
  }
}

function isPrimitive(v: unknown): boolean {
  return v === null || v === undefined || ['string', 'number', 'boolean'].includes(typeof v);
}

function compare(op: string, l: unknown, r: unknown): boolean {
  const ok = (typeof l === 'number' && typeof r === 'number') || (typeof l === 'string' && typeof r === 'string');
  if (!ok) return false;
  const a = l as number | string;
  const b = r as number | string;
  return op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b;
}

/** The value context a condition reads: `{visitor: {claims}, space: {vars}, page: {vars}}`. */
export interface ConditionContext {
  visitor?: { claims?: Record<string, unknown> };
  space?: Record<string, unknown>;
  page?: Record<string, unknown>;
}

/** Evaluate to a boolean: empty or absent is true; a syntax or evaluation error is false. */
export function evaluateCondition(expression: string | null | undefined, ctx: ConditionContext): boolean {
  if (expression === null || expression === undefined) return true;
  try {
    const ast = parseCondition(expression);
    if (!ast) return true;
    return !!evaluate(ast, ctx as Record<string, unknown>, { n: NODE_BUDGET * 4 });
  } catch {
    return false;
  }
}
