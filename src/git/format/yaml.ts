// A small YAML emitter for front matter that writes what GitBook writes. GitBook serialises front
// matter the way js-yaml's `dump` does with its defaults (2-space indent, 80 columns, single quotes
// when quoting is needed, `>-` folded blocks for long strings, `|` literal blocks for multi-line
// ones), so a repository GitBook wrote round-trips byte for byte. Reading uses the `yaml` package;
// every plain scalar written here is also checked to read back as the same string.
import { parse } from 'yaml';

const INDENT = 2;
const LINE_WIDTH = 80;

const isWhite = (c: number) => c === 0x20 || c === 0x09;

/** Characters that can be written without escaping (YAML's printable set minus the line breaks). */
function isPrintable(c: number): boolean {
  return (
    (c >= 0x20 && c <= 0x7e) ||
    (c >= 0xa1 && c <= 0xd7ff && c !== 0x2028 && c !== 0x2029) ||
    (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff) ||
    (c >= 0x10000 && c <= 0x10ffff)
  );
}

const nsCharOrWhite = (c: number) => isPrintable(c) && c !== 0xfeff && c !== 0x0d && c !== 0x0a;

/** Indicators that may not start a plain scalar: - ? : , [ ] { } # & * ! | = > ' " % @ ` */
const NOT_FIRST = new Set(Array.from('-?:,[]{}#&*!|=>\'"%@`', (c) => c.charCodeAt(0)));
const FLOW = new Set(Array.from(',[]{}', (c) => c.charCodeAt(0)));
const COLON = 0x3a;
const SHARP = 0x23;

function plainSafe(c: number, prev: number | null, inFlow: boolean): boolean {
  const ns = nsCharOrWhite(c) && !isWhite(c);
  return (
    ((inFlow ? nsCharOrWhite(c) && !FLOW.has(c) : nsCharOrWhite(c)) && c !== SHARP && !(prev === COLON && !ns)) ||
    (prev !== null && nsCharOrWhite(prev) && !isWhite(prev) && c === SHARP) ||
    (prev === COLON && ns)
  );
}

/** Words that read as a boolean or null under the core or the YAML 1.1 schema (lower-cased). */
const SPECIAL_WORDS = new Set(['null', 'true', 'false', 'yes', 'no', 'on', 'off', 'y', 'n']);

/** True when the plain scalar would read back as something else (a boolean, number, null, date...). */
function ambiguous(s: string): boolean {
  if (s === '<<') return true;
  // Every plain scalar that reads as something else and starts with a letter is one word (null,
  // true, yes, off...): a sentence (most titles and descriptions) needs no parse to know.
  if (/^[A-Za-z]/.test(s) && /\s/.test(s)) return false;
  // So does one word of letters, '_' and '-' starting with a letter (a key such as `description`),
  // unless it is one of those words in some case. Not with digits: YAML 1.1 reads `e1` as a float.
  if (/^[A-Za-z][A-Za-z_-]*$/.test(s) && !SPECIAL_WORDS.has(s.toLowerCase())) return false;
  for (const schema of ['core', 'yaml-1.1'] as const) {
    try {
      if (parse(s, { schema, logLevel: 'error' }) !== s) return true;
    } catch {
      return true;
    }
  }
  return false;
}

const ESCAPES: Record<number, string> = {
  0x00: '\\0',
  0x07: '\\a',
  0x08: '\\b',
  0x09: '\\t',
  0x0a: '\\n',
  0x0b: '\\v',
  0x0c: '\\f',
  0x0d: '\\r',
  0x1b: '\\e',
  0x22: '\\"',
  0x5c: '\\\\',
  0x85: '\\N',
  0xa0: '\\_',
  0x2028: '\\L',
  0x2029: '\\P',
};

function doubleQuoted(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ESCAPES[c]) out += ESCAPES[c];
    else if (isPrintable(c)) out += ch;
    else if (c <= 0xff) out += `\\x${c.toString(16).toUpperCase().padStart(2, '0')}`;
    else if (c <= 0xffff) out += `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += `\\U${c.toString(16).toUpperCase().padStart(8, '0')}`;
  }
  return `"${out}"`;
}

/** Greedy folding of one line at single spaces: the longest piece within `width`, else the shortest over it. */
function foldLine(line: string, width: number): string {
  if (line === '' || line[0] === ' ') return line;
  const breaks = / [^ ]/g;
  let start = 0;
  let current = 0;
  let result = '';
  for (let m = breaks.exec(line); m; m = breaks.exec(line)) {
    const next = m.index;
    if (next - start > width) {
      const end = current > start ? current : next;
      result += `\n${line.slice(start, end)}`;
      start = end + 1;
    }
    current = next;
  }
  result += '\n';
  if (line.length - start > width && current > start) result += `${line.slice(start, current)}\n${line.slice(current + 1)}`;
  else result += line.slice(start);
  return result.slice(1);
}

/** Folded-style body: a single line break between two content lines is written as an empty line. */
function foldString(s: string, width: number): string {
  const lines = /(\n+)([^\n]*)/g;
  const firstBreak = s.indexOf('\n');
  const firstEnd = firstBreak < 0 ? s.length : firstBreak;
  lines.lastIndex = firstEnd;
  let result = foldLine(s.slice(0, firstEnd), width);
  let prevMoreIndented = s[0] === '\n' || s[0] === ' ';
  for (let m = lines.exec(s); m; m = lines.exec(s)) {
    const [, prefix, line] = m;
    const moreIndented = line[0] === ' ';
    result += prefix + (!prevMoreIndented && !moreIndented && line !== '' ? '\n' : '') + foldLine(line, width);
    prevMoreIndented = moreIndented;
  }
  return result;
}

function blockHeader(s: string): string {
  const indicator = /^\n* /.test(s) ? String(INDENT) : '';
  const clip = s.endsWith('\n');
  const keep = clip && (s[s.length - 2] === '\n' || s === '\n');
  return `${indicator}${keep ? '+' : clip ? '' : '-'}\n`;
}

function indentLines(s: string, indent: number): string {
  const pad = ' '.repeat(indent);
  return s.replace(/^(?!$)/gm, pad);
}

const dropFinalNewline = (s: string) => (s.endsWith('\n') ? s.slice(0, -1) : s);

const OLD_BOOLEANS = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF']);
const SEXAGESIMAL = /^[-+]?[0-9_]+(?::[0-9_]+)+(?:\.[0-9_]*)?$/;

/** A string scalar at nesting `level` (1 for the values of the top mapping). */
function stringScalar(s: string, level: number, singleLine: boolean): string {
  if (s === '') return "''";
  if (OLD_BOOLEANS.has(s) || SEXAGESIMAL.test(s)) return `'${s}'`;
  const indent = INDENT * Math.max(1, level);
  const width = Math.max(Math.min(LINE_WIDTH, 40), LINE_WIDTH - indent);
  const cps = Array.from(s, (ch) => ch.codePointAt(0)!);
  let plain = cps.length > 0 && isPrintable(cps[0]) && cps[0] !== 0xfeff && !isWhite(cps[0]) && !NOT_FIRST.has(cps[0]);
  const last = cps[cps.length - 1];
  plain = plain && !isWhite(last) && last !== COLON;
  let hasBreak = false;
  let foldable = false;
  let prevBreak = -1;
  let prev: number | null = null;
  let i = 0; // UTF-16 index, as line widths are counted in code units
  for (const c of cps) {
    if (c === 0x0a && !singleLine) {
      hasBreak = true;
      foldable = foldable || (i - prevBreak - 1 > width && s[prevBreak + 1] !== ' ');
      prevBreak = i;
    } else if (!isPrintable(c)) return doubleQuoted(s);
    plain = plain && plainSafe(c, prev, false);
    prev = c;
    i += c >= 0x10000 ? 2 : 1;
  }
  if (!singleLine) foldable = foldable || (i - prevBreak - 1 > width && s[prevBreak + 1] !== ' ');
  if (singleLine || (!hasBreak && !foldable)) {
    if (plain && !ambiguous(s)) return s;
    return `'${s.replace(/'/g, "''")}'`;
  }
  if (foldable) return `>${blockHeader(s)}${dropFinalNewline(indentLines(foldString(s, width), indent))}`;
  return `|${blockHeader(s)}${dropFinalNewline(indentLines(s, indent))}`;
}

function scalar(value: unknown, level: number, singleLine = false): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return '.nan';
    if (value === Infinity) return '.inf';
    if (value === -Infinity) return '-.inf';
    return Object.is(value, -0) ? '-0.0' : String(value);
  }
  return stringScalar(String(value), level, singleLine);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function writeMapping(obj: Record<string, unknown>, level: number, out: string[]): void {
  const pad = ' '.repeat(INDENT * level);
  for (const [key, value] of Object.entries(obj)) {
    if (value === undefined) continue;
    const k = scalar(key, level, true);
    if (isObject(value) && Object.keys(value).some((x) => value[x] !== undefined)) {
      out.push(`${pad}${k}:`);
      writeMapping(value, level + 1, out);
    } else if (isObject(value)) {
      out.push(`${pad}${k}: {}`);
    } else if (Array.isArray(value) && value.length > 0) {
      out.push(`${pad}${k}:`);
      const itemPad = ' '.repeat(INDENT * (level + 1));
      for (const item of value) {
        out.push(`${itemPad}- ${isObject(item) || Array.isArray(item) ? JSON.stringify(item) : scalar(item, level + 2)}`);
      }
    } else if (Array.isArray(value)) {
      out.push(`${pad}${k}: []`);
    } else {
      out.push(`${pad}${k}: ${scalar(value, level + 1)}`);
    }
  }
}

/** A block mapping as js-yaml's `dump` writes it (keys in the object's order), ending with a newline. */
export function dumpYaml(obj: Record<string, unknown>): string {
  const out: string[] = [];
  writeMapping(obj, 0, out);
  return out.length ? `${out.join('\n')}\n` : '{}\n';
}
