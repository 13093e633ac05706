// An OpenAPI 3.x or Swagger 2.0 description (bundled: internal `$ref`s only) as the Markdown of a
// reference page: every operation, grouped by tag, with its parameters (path-level ones and those
// given by `$ref` included), request body and responses with their schemas, and optionally the
// models. Pure and bounded: the output is kept within the content limits of a page body by showing
// less schema detail when a description is large, never by dropping operations.
import {
  cell,
  code,
  isObject,
  oneLine,
  resolve,
  schemaFacts,
  schemaRows,
  schemaTable,
  schemaType,
  type SchemaBudget,
} from './openapi-schema.js';

type Json = Record<string, any>;

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Most characters and (roughly counted) Markdown nodes a rendered reference may take. */
const MAX_CHARS = 250_000;
const MAX_NODES = 60_000;
/** Most characters of one description shown. */
const MAX_DESCRIPTION = 5_000;

export interface ReferenceOptions {
  /** Also list the models (components.schemas / definitions). */
  models?: boolean;
  /**
   * One part of a reference split into pages (the `doc`/`page` of the description's
   * ComputedContentSourceDocumentOpenAPI props): the overview, one tag's operations, or the models.
   * Absent: the whole reference on one page.
   */
  part?: { doc: 'info' } | { doc: 'tag'; page: string } | { doc: 'models' } | { doc: 'operation'; page: string; method: string };
  /** Most characters of the page (less schema detail above it); MAX_CHARS by default. */
  maxChars?: number;
}

interface Level {
  depth: number;
  properties: number;
  lines: number;
}

/** Schema detail, most first; a large description is rendered again with the next level. */
const LEVELS: Level[] = [
  { depth: 4, properties: 60, lines: 250 },
  { depth: 2, properties: 30, lines: 60 },
  { depth: 1, properties: 20, lines: 20 },
  { depth: 0, properties: 0, lines: 0 },
];

/** The whole reference page. */
export function openapiReferenceMarkdown(doc: unknown, opts: ReferenceOptions = {}): string {
  if (!isObject(doc)) return '> The OpenAPI description is not an object.\n';
  if (opts.part?.doc === 'operation') return openapiOperationMarkdown(doc, opts.part.page, opts.part.method);
  let out = '';
  // Less detail for the models first, then for the operations too.
  const attempts: [number, number][] = opts.models
    ? [
        [0, 0],
        [0, 1],
        [0, 2],
        [1, 2],
        [1, 3],
        [2, 3],
        [3, 3],
      ]
    : LEVELS.map((_, i) => [i, i]);
  for (const [ops, models] of attempts) {
    out = render(doc, opts, LEVELS[ops], LEVELS[models]);
    if (out.length <= (opts.maxChars ?? MAX_CHARS) && roughNodes(out) <= MAX_NODES) return out;
  }
  // Even without schemas: cut at a line, and say so.
  const cut = out.lastIndexOf('\n', MAX_CHARS - 200);
  return `${out.slice(0, Math.max(0, cut))}\n\n> The rest of this reference is left out: the description is too large for one page.\n`;
}

/** One operation (`{% openapi-operation %}` blocks), or a note when the description has no such operation. */
export function openapiOperationMarkdown(doc: unknown, path: string, method: string, headingLevel = 2): string {
  if (!isObject(doc)) return '> The OpenAPI description is not an object.\n';
  const item = resolve(doc, doc.paths?.[path]).value;
  const m = method.toLowerCase();
  const op = item && resolve(doc, item[m]).value;
  if (!item || !op) return `> The OpenAPI description has no operation ${code(`${method.toUpperCase()} ${path}`)}.\n`;
  const lines: string[] = [];
  operation(doc, path, m, item, op, headingLevel, { level: LEVELS[0], shown: new Map(), at: '' }, lines);
  return lines.join('\n');
}

function roughNodes(md: string): number {
  let n = 0;
  for (let i = 0; i < md.length; i++) {
    const c = md.charCodeAt(i);
    if (c === 10 || c === 124) n++; // lines, table cells
  }
  return n;
}

/**
 * A description (Markdown), bounded, its headings moved down to at least `minLevel` so that they
 * nest under the heading of what they describe instead of breaking the page's outline.
 */
function description(v: unknown, minLevel = 2): string {
  if (typeof v !== 'string') return '';
  let s = v.trim();
  if (s.length > MAX_DESCRIPTION) s = `${s.slice(0, MAX_DESCRIPTION)}…`;
  let fence: string | null = null;
  return s
    .split('\n')
    .map((line) => {
      const f = /^ {0,3}(`{3,}|~{3,})/.exec(line);
      if (f) {
        if (!fence) fence = f[1][0];
        else if (f[1][0] === fence) fence = null;
        return line;
      }
      if (fence) return line;
      const h = /^ {0,3}(#{1,6})(?=\s|$)/.exec(line);
      if (!h || h[1].length >= minLevel) return line;
      return `${'#'.repeat(Math.min(6, minLevel))}${line.slice(h[0].length)}`;
    })
    .join('\n');
}

function render(doc: Json, opts: ReferenceOptions, level: Level, modelLevel: Level): string {
  const lines: string[] = [];
  const ctx: Ctx = { level, shown: new Map(), at: '' };
  const part = opts.part;
  if (!part || part.doc === 'info') infoLines(doc, lines);
  if (part?.doc === 'info') {
    const all = groups(doc);
    if (all.length) {
      lines.push('## Operations', '');
      for (const g of all)
        lines.push(`- ${oneLine(g.title, 200)}: ${g.operations.length} operation${g.operations.length === 1 ? '' : 's'}`);
      lines.push('');
    }
  }
  if (!part) {
    for (const group of groups(doc)) {
      lines.push(`## ${oneLine(group.title, 200) || 'Operations'}`, '');
      const tagDesc = description(group.description, 3);
      if (tagDesc) lines.push(tagDesc, '');
      for (const o of group.operations) operation(doc, o.path, o.method, o.item, o.op, 3, ctx, lines);
    }
  } else if (part.doc === 'tag') {
    // One tag's page: its operations at the top level of the page.
    const group = groups(doc).find((g) => g.key === part.page);
    if (!group) lines.push(`> The current version of the description has no operations tagged ${code(part.page)}.`, '');
    else {
      const tagDesc = description(group.description, 2);
      if (tagDesc) lines.push(tagDesc, '');
      for (const o of group.operations) operation(doc, o.path, o.method, o.item, o.op, 2, ctx, lines);
    }
  }
  if ((!part && opts.models) || part?.doc === 'models') models(doc, part ? 2 : 3, modelLevel, lines);
  return lines.join('\n');
}

function infoLines(doc: Json, lines: string[]) {
  const info = isObject(doc.info) ? doc.info : {};
  const desc = description(info.description);
  if (desc) lines.push(desc, '');
  lines.push(`Version: ${code(String(info.version ?? 'unknown'))}`, '');
  const servers = Array.isArray(doc.servers)
    ? doc.servers.filter(isObject).map((s: Json) => String(s.url ?? ''))
    : doc.host
      ? (Array.isArray(doc.schemes) && doc.schemes.length ? doc.schemes : ['https']).map(
          (s: string) => `${s}://${doc.host}${doc.basePath ?? ''}`,
        )
      : [];
  if (servers.length) {
    lines.push('Servers:', '');
    for (const s of servers.slice(0, 20)) lines.push(`- ${code(s)}`);
    lines.push('');
  }
}

function models(doc: Json, h: number, level: Level, lines: string[]) {
  const schemas = isObject(doc.components?.schemas) ? doc.components.schemas : isObject(doc.definitions) ? doc.definitions : {};
  const names = Object.keys(schemas);
  if (!names.length) return;
  if (h > 2) lines.push('## Models', '');
  for (const name of names) {
    const s = resolve(doc, schemas[name]).value;
    lines.push(`${'#'.repeat(h)} ${oneLine(name, 200)}`, '');
    const d = description(s?.description, h + 1);
    if (d) lines.push(d, '');
    lines.push(`Type: ${schemaType(doc, schemas[name])}`, '');
    lines.push(...schemaTable(schemaRows(doc, schemas[name], budget(level), '', [name])));
  }
}

/** The pages a by-tag reference is made of: one per group of operations (the key is the tag, '' for untagged ones). */
export function referenceGroups(doc: unknown): { key: string; title: string }[] {
  if (!isObject(doc)) return [];
  return groups(doc).map((g) => ({ key: g.key, title: oneLine(g.title, 100) || 'Operations' }));
}

function budget(level: Level): SchemaBudget {
  return { depth: level.depth, properties: level.properties, lines: level.lines };
}

/** What rendering the operations of one page shares. */
interface Ctx {
  level: Level;
  /** Named schemas whose fields were already listed on the page, and under which operation. */
  shown: Map<string, string>;
  /** The operation being rendered (`GET /pets`). */
  at: string;
}

/**
 * A request or response body's fields: a named schema (a component) is listed once per page, later
 * uses point to that first listing (error bodies shared by every operation would otherwise repeat
 * hundreds of times on a large description).
 */
function bodyFields(doc: Json, schema: unknown, ctx: Ctx): string[] {
  const { name } = resolve(doc, schema);
  if (name) {
    const first = ctx.shown.get(name);
    if (first && first !== ctx.at) return [`Fields of ${code(name)}: as listed for ${code(first)} above.`, ''];
    ctx.shown.set(name, ctx.at);
  }
  return schemaTable(schemaRows(doc, schema, budget(ctx.level)));
}

interface OperationRef {
  path: string;
  method: string;
  item: Json;
  op: Json;
}

interface Group {
  /** The tag, '' for untagged operations. */
  key: string;
  title: string;
  description?: string;
  operations: OperationRef[];
}

/** Operations by their first tag: declared tags first, in their order, then the others as met; untagged last. */
function groups(doc: Json): Group[] {
  const byTag = new Map<string, Group>();
  for (const t of Array.isArray(doc.tags) ? doc.tags : []) {
    if (isObject(t) && typeof t.name === 'string' && !byTag.has(t.name)) {
      byTag.set(t.name, { key: t.name, title: String(t['x-displayName'] ?? t.name), description: t.description, operations: [] });
    }
  }
  const untagged: Group = { key: '', title: byTag.size ? 'Other operations' : 'Operations', operations: [] };
  for (const [path, rawItem] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    const item = resolve(doc, rawItem).value;
    if (!item) continue;
    for (const method of HTTP_METHODS) {
      const op = resolve(doc, item[method]).value;
      if (!op) continue;
      const tag = Array.isArray(op.tags) && typeof op.tags[0] === 'string' ? op.tags[0] : undefined;
      let group = untagged;
      if (tag !== undefined) {
        group = byTag.get(tag) ?? { key: tag, title: tag, operations: [] };
        byTag.set(tag, group);
      }
      group.operations.push({ path, method, item, op });
    }
  }
  return [...byTag.values(), untagged].filter((g) => g.operations.length);
}

interface Param {
  name: string;
  in: string;
  required: boolean;
  type: string;
  description: string;
  p: Json;
}

/** Path-level and operation parameters, `$ref`s followed; an operation's parameter overrides the path's of the same name and place. */
function parameters(doc: Json, item: Json, op: Json): Json[] {
  const byKey = new Map<string, Json>();
  const list = [...(Array.isArray(item.parameters) ? item.parameters : []), ...(Array.isArray(op.parameters) ? op.parameters : [])];
  for (const raw of list.slice(0, 500)) {
    const p = resolve(doc, raw).value;
    if (!p) continue;
    byKey.set(`${p.in}\n${p.name}`, p);
  }
  return [...byKey.values()];
}

function paramType(doc: Json, p: Json): string {
  if (p.schema !== undefined) return schemaType(doc, p.schema);
  if (typeof p.type === 'string') {
    if (p.type === 'array') return `array of ${p.items ? schemaType(doc, p.items) : 'any'}`;
    return typeof p.format === 'string' ? `${p.type} (${p.format})` : p.type;
  }
  if (isObject(p.content)) {
    const first = Object.values(p.content)[0];
    if (isObject(first)) return schemaType(doc, first.schema);
  }
  return 'any';
}

function operation(doc: Json, path: string, method: string, item: Json, op: Json, h: number, ctx: Ctx, lines: string[]) {
  ctx.at = `${method.toUpperCase()} ${path}`;
  const hashes = '#'.repeat(Math.min(6, h));
  const title = oneLine(op.summary, 200) || `${method.toUpperCase()} ${path}`;
  lines.push(`${hashes} ${title}`, '');
  lines.push(`${code(`${method.toUpperCase()} ${path}`)}${op.deprecated === true ? ' (deprecated)' : ''}`, '');
  if (typeof op.operationId === 'string') lines.push(`Operation ID: ${code(op.operationId)}`, '');
  const desc = description(op.description, h + 1);
  if (desc) lines.push(desc, '');

  const all = parameters(doc, item, op);
  const params: Param[] = [];
  const bodyParams: Json[] = [];
  for (const p of all) {
    if (p.in === 'body') bodyParams.push(p);
    else {
      const schema = p.schema !== undefined ? resolve(doc, p.schema).value : p;
      params.push({
        name: String(p.name ?? ''),
        in: String(p.in ?? ''),
        required: p.required === true || p.in === 'path',
        type: paramType(doc, p),
        description: [oneLine(p.description), schemaFacts(schema)].filter(Boolean).join(' '),
        p,
      });
    }
  }
  if (params.length) {
    lines.push('**Parameters**', '', '| Name | In | Type | Required | Description |', '| --- | --- | --- | --- | --- |');
    for (const p of params) {
      lines.push(`| ${code(p.name)} | ${cell(p.in)} | ${cell(p.type)} | ${p.required ? 'yes' : 'no'} | ${cell(p.description)} |`);
    }
    lines.push('');
  }

  requestBody(doc, op, bodyParams, ctx, lines);
  responses(doc, op, ctx, lines);
}

function requestBody(doc: Json, op: Json, bodyParams: Json[], ctx: Ctx, lines: string[]) {
  // OpenAPI 3: requestBody. Swagger 2.0: an `in: body` parameter (formData ones are in the table above).
  const rb = resolve(doc, op.requestBody).value;
  if (rb) {
    lines.push(`**Request body**${rb.required === true ? ' (required)' : ''}`, '');
    const d = description(rb.description, 6);
    if (d) lines.push(d, '');
    content(doc, rb.content, ctx, lines);
    return;
  }
  for (const p of bodyParams.slice(0, 1)) {
    lines.push(`**Request body**${p.required === true ? ' (required)' : ''}: ${schemaType(doc, p.schema)}`, '');
    const d = description(p.description, 6);
    if (d) lines.push(d, '');
    lines.push(...bodyFields(doc, p.schema, ctx));
  }
}

function content(doc: Json, c: unknown, ctx: Ctx, lines: string[]) {
  if (!isObject(c)) return;
  for (const [type, media] of Object.entries(c).slice(0, 10)) {
    const m = resolve(doc, media).value;
    lines.push(`${code(type)}: ${m?.schema !== undefined ? schemaType(doc, m.schema) : 'any'}`, '');
    if (m?.schema !== undefined) lines.push(...bodyFields(doc, m.schema, ctx));
  }
}

function responses(doc: Json, op: Json, ctx: Ctx, lines: string[]) {
  const rs = isObject(op.responses) ? op.responses : {};
  const codes = Object.keys(rs);
  if (!codes.length) return;
  lines.push('**Responses**', '');
  for (const status of codes.slice(0, 100)) {
    const r = resolve(doc, rs[status]).value;
    const d = oneLine(r?.description, 500);
    lines.push(`Response **${cell(status, 20)}**${d ? `: ${d}` : ''}`, '');
    if (!r) continue;
    if (isObject(r.content)) content(doc, r.content, ctx, lines);
    else if (r.schema !== undefined) {
      lines.push(`Body: ${schemaType(doc, r.schema)}`, '');
      lines.push(...bodyFields(doc, r.schema, ctx));
    }
  }
}
