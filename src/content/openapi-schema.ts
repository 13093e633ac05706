// Reading a bundled OpenAPI document as people write it: internal `$ref`s anywhere (also where the
// specification allows none, such as an Operation Object), cycles, missing pieces. Every walk is
// bounded (reference chains, depth, properties shown), so a hostile or huge description costs at
// most a fixed amount of work per thing shown.

/** Longest chain of `$ref` → `$ref` followed before giving up. */
const MAX_REF_CHAIN = 32;

type Json = Record<string, any>;

export function isObject(v: unknown): v is Json {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** The value at a JSON pointer (`#/components/schemas/Pet`) of `doc`, or undefined. */
function pointer(doc: Json, ref: string): unknown {
  if (ref === '#') return doc;
  if (!ref.startsWith('#/')) return undefined;
  let cur: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    let key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    try {
      key = decodeURIComponent(key);
    } catch {
      // kept as written
    }
    if (Array.isArray(cur)) cur = cur[Number(key)];
    else if (isObject(cur) && Object.prototype.hasOwnProperty.call(cur, key)) cur = cur[key];
    else return undefined;
  }
  return cur;
}

/** What a `$ref` points at: its last component's name (`Pet` for `#/components/schemas/Pet`). */
export function refName(ref: string): string {
  const last = ref.split('/').pop() ?? ref;
  return last.replace(/~1/g, '/').replace(/~0/g, '~');
}

export interface Resolved {
  value: Json | undefined;
  /** Name of the last reference followed, if any (the component's name). */
  name?: string;
}

/** Follow `$ref`s (internal only) to an object; siblings of a `$ref` (3.1) are kept over the target's. */
export function resolve(doc: Json, v: unknown): Resolved {
  let cur = v;
  let name: string | undefined;
  let siblings: Json | undefined;
  for (let i = 0; i < MAX_REF_CHAIN && isObject(cur) && typeof cur.$ref === 'string'; i++) {
    const { $ref, ...rest } = cur;
    if (Object.keys(rest).length) siblings = { ...rest, ...siblings };
    name = refName($ref);
    cur = pointer(doc, $ref);
  }
  if (!isObject(cur) || typeof cur.$ref === 'string') return { value: siblings, name };
  return { value: siblings ? { ...cur, ...siblings } : cur, name };
}

export interface SchemaBudget {
  /** Nesting levels of properties shown. */
  depth: number;
  /** Properties shown per object. */
  properties: number;
  /** Lines this schema may still add. */
  lines: number;
}

/** One line of text: whitespace collapsed, bounded. */
export function oneLine(v: unknown, max = 300): string {
  if (v === undefined || v === null) return '';
  const s = String(v).replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Text for a Markdown table cell. */
export function cell(v: unknown, max = 300): string {
  return oneLine(v, max).replace(/\\/g, '\\\\').replace(/\|/g, '\\|');
}

/** Inline code for a name (backticks in it handled). */
export function code(v: string): string {
  const s = oneLine(v, 200);
  return s.includes('`') ? `\`\` ${s} \`\`` : `\`${s}\``;
}

function typeOfSchema(doc: Json, s: Json | undefined, name: string | undefined, seen: number): string {
  if (!s) return name ?? 'any';
  if (seen > 2) return name ?? 'object';
  let t: string;
  const type = Array.isArray(s.type) ? s.type.filter((x: unknown) => typeof x === 'string').join(' | ') : s.type;
  if (type === 'array' || (type === undefined && s.items !== undefined)) {
    const items = resolve(doc, s.items);
    t = `array of ${typeOfSchema(doc, items.value, items.name, seen + 1)}`;
  } else if (typeof type === 'string' && type) {
    t = type;
    if (typeof s.format === 'string') t += ` (${oneLine(s.format, 40)})`;
  } else if (Array.isArray(s.oneOf) || Array.isArray(s.anyOf)) {
    const alts = (s.oneOf ?? s.anyOf) as unknown[];
    t = alts
      .slice(0, 4)
      .map((a) => {
        const r = resolve(doc, a);
        return typeOfSchema(doc, r.value, r.name, seen + 1);
      })
      .join(' | ');
  } else if (Array.isArray(s.allOf) || isObject(s.properties)) {
    t = 'object';
  } else if (Array.isArray(s.enum)) {
    t = 'enum';
  } else {
    t = 'any';
  }
  return name && !t.startsWith(name) ? `${name} (${t})` : t;
}

/** A schema's type in a few words: `string (uuid)`, `array of Pet (object)`, `Pet (object)`. */
export function schemaType(doc: Json, schema: unknown): string {
  const r = resolve(doc, schema);
  return typeOfSchema(doc, r.value, r.name, 0);
}

/** Facts worth a reader's eye beside a schema's description: enum values, default, nullable. */
export function schemaFacts(s: Json | undefined): string {
  if (!s) return '';
  const facts: string[] = [];
  if (Array.isArray(s.enum)) {
    const shown = s.enum.slice(0, 12).map((v: unknown) => code(JSON.stringify(v) ?? 'null'));
    facts.push(`one of ${shown.join(', ')}${s.enum.length > 12 ? `, … (${s.enum.length} values)` : ''}`);
  }
  if (s.default !== undefined) facts.push(`default ${code(JSON.stringify(s.default) ?? '')}`);
  if (s.nullable === true) facts.push('nullable');
  if (s.deprecated === true) facts.push('deprecated');
  return facts.join('; ');
}

/** Most schema objects one object's allOf merges. */
const MAX_MERGED = 64;

/** Properties of an object schema, allOf parts merged (bounded), with their required flags. */
function objectProperties(doc: Json, s: Json, guard: number): { props: [string, unknown][]; required: Set<string> } {
  const props: [string, unknown][] = [];
  const required = new Set<string>();
  // Each schema object merged once (an allOf may name the same part twice, or itself), and at most
  // MAX_MERGED of them: the walk stays linear however the parts nest.
  const seen = new Set<Json>();
  const add = (o: Json | undefined, level: number) => {
    if (!o || level > 8 || seen.has(o) || seen.size >= MAX_MERGED) return;
    seen.add(o);
    if (isObject(o.properties)) for (const entry of Object.entries(o.properties).slice(0, 1000)) props.push(entry);
    if (Array.isArray(o.required)) for (const r of o.required) if (typeof r === 'string') required.add(r);
    if (Array.isArray(o.allOf)) for (const part of o.allOf.slice(0, 16)) add(resolve(doc, part).value, level + 1);
  };
  add(s, guard);
  return { props, required };
}

/** One field of a schema, flattened: its path (`project.metadata.public`, `items[].id`). */
export interface SchemaRow {
  path: string;
  type: string;
  required: boolean;
  description: string;
}

/**
 * A schema's fields (objects' properties, arrays' items, oneOf/anyOf options) as flat rows, nested
 * fields named by their path, within `budget`. Flat on purpose: a Markdown table costs the parser
 * linear work, where nested lists of a large description cost it quadratic work. Components seen on
 * the way are not expanded again (cycles).
 */
export function schemaRows(doc: Json, schema: unknown, budget: SchemaBudget, prefix = '', path: string[] = [], level = 0): SchemaRow[] {
  const out: SchemaRow[] = [];
  const r = resolve(doc, schema);
  const s = r.value;
  if (!s || path.length >= budget.depth || budget.lines <= 0 || level > 32) return out;
  if (r.name && path.includes(r.name)) return out; // a cycle: named, not expanded again
  const inPath = r.name ? [...path, r.name] : path;

  const type = Array.isArray(s.type) ? s.type : [s.type];
  if (type.includes('array') || (s.type === undefined && s.items !== undefined)) {
    return schemaRows(doc, s.items, budget, prefix ? `${prefix}[]` : '', inPath, level + 1);
  }
  const { props, required } = objectProperties(doc, s, 0);
  for (const [name, propSchema] of props.slice(0, budget.properties)) {
    if (budget.lines <= 0) return out;
    budget.lines--;
    const p = resolve(doc, propSchema);
    const field = prefix ? `${prefix}.${name}` : name;
    const facts = schemaFacts(p.value);
    const desc = oneLine(p.value?.description ?? p.value?.title, 200);
    out.push({
      path: field,
      type: schemaType(doc, propSchema),
      required: required.has(name),
      description: [desc, facts && `(${facts})`].filter(Boolean).join(' '),
    });
    out.push(...schemaRows(doc, propSchema, budget, field, inPath, level + 1));
  }
  if (props.length > budget.properties && budget.lines > 0) {
    budget.lines--;
    out.push({
      path: prefix ? `${prefix}.…` : '…',
      type: '',
      required: false,
      description: `${props.length - budget.properties} more properties`,
    });
  }
  const alts = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : null;
  if (alts) {
    for (const [i, alt] of alts.slice(0, budget.properties).entries()) {
      if (budget.lines <= 0) return out;
      budget.lines--;
      const label = `${prefix ? `${prefix} ` : ''}(option ${i + 1})`;
      out.push({
        path: label,
        type: schemaType(doc, alt),
        required: false,
        description: oneLine(resolve(doc, alt).value?.description, 200),
      });
      out.push(...schemaRows(doc, alt, budget, prefix, inPath, level + 1));
    }
  }
  return out;
}

/** Rows as a Markdown table (empty when there are none). */
export function schemaTable(rows: SchemaRow[]): string[] {
  if (!rows.length) return [];
  return [
    '| Field | Type | Required | Description |',
    '| --- | --- | --- | --- |',
    ...rows.map((r) => `| ${code(r.path)} | ${cell(r.type)} | ${r.required ? 'yes' : 'no'} | ${cell(r.description)} |`),
    '',
  ];
}
