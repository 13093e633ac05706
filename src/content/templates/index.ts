// The built-in space templates: loaded and checked once at start-up (a broken template, such as a
// link to a page key that does not exist or an anchor no heading provides, stops the process rather
// than producing broken content), then instantiated as a tree of pages ready to insert in a Draft.
import { readFileSync } from 'node:fs';
import { headings } from '../markdown.js';
import type { TemplateDef, TemplatePageDef, TemplateSlot } from './types.js';
import { productDocs } from './product-docs/index.js';
import { apiReference } from './api-reference/index.js';
import { changelog } from './changelog/index.js';
import { runbook } from './runbook/index.js';

export type { TemplateDef, TemplatePageDef, TemplateSlot } from './types.js';

/** `](page:key)` or `](page:key#anchor)`: a link to another page of the template. */
const PAGE_LINK = /\]\(page:([a-z0-9-]+)(#[a-z0-9-]+)?\)/g;
/** `![alt](slot:name)`: an image filled from a content ref. */
const SLOT_IMAGE = /!\[([^\]]*)\]\(slot:([a-z0-9-]+)\)/g;
/** An image slot alone on its line (removed with the blank line after it when the slot is not given). */
const SLOT_IMAGE_LINE = (name: string) => new RegExp(`^[ \\t]*!\\[[^\\]]*\\]\\(slot:${name}\\)[ \\t]*\\n(?:[ \\t]*\\n)?`, 'gm');
const DATE = /\{\{\s*template\.date\s*\}\}/g;
/** Anything that looks like a placeholder but none of the above: a typo in a template. */
const STRAY = /\((?:page|slot):|\{\{\s*template\./;

interface LoadedTemplate extends TemplateDef {
  /** Page key -> raw Markdown (placeholders not yet substituted). */
  bodies: Map<string, string>;
}

/** A page ready for `Draft.insertPage`: ids assigned, links and slots substituted. */
export interface TemplatePageInstance {
  id: string;
  key: string;
  title: string;
  emoji?: string;
  description?: string;
  markdown: string;
  cover?: Record<string, unknown>;
  layout?: Record<string, unknown>;
  children: TemplatePageInstance[];
}

function walk(pages: TemplatePageDef[], fn: (p: TemplatePageDef) => void) {
  for (const p of pages) {
    fn(p);
    walk(p.children ?? [], fn);
  }
}

/** Read a template's Markdown files and check every key, link, anchor and slot. Throws on a defect. */
export function loadTemplate(def: TemplateDef): LoadedTemplate {
  const fail = (msg: string): never => {
    throw new Error(`Template "${def.id}": ${msg}`);
  };
  const bodies = new Map<string, string>();
  const keys = new Set<string>();
  walk(def.pages, (p) => {
    if (keys.has(p.key)) fail(`duplicate page key "${p.key}"`);
    keys.add(p.key);
    bodies.set(p.key, p.file ? readFileSync(new URL(p.file, def.dir), 'utf8') : '');
    if (p.cover !== undefined && def.slots[p.cover]?.usage !== 'cover')
      fail(`page "${p.key}" uses "${p.cover}" as a cover, which is not a cover slot`);
  });
  const anchors = new Map([...bodies].map(([k, md]) => [k, new Set(headings(md).map((h) => h.id))]));
  const usedSlots = new Set<string>();
  walk(def.pages, (p) => p.cover && usedSlots.add(p.cover));
  for (const [key, md] of bodies) {
    for (const [, target, hash] of md.matchAll(PAGE_LINK)) {
      if (!keys.has(target)) fail(`page "${key}" links to unknown page "${target}"`);
      if (hash && !anchors.get(target)!.has(hash.slice(1))) fail(`page "${key}" links to "${target}${hash}", which has no such heading`);
    }
    for (const [, , slot] of md.matchAll(SLOT_IMAGE)) {
      if (def.slots[slot]?.usage !== 'image') fail(`page "${key}" uses "${slot}" as an image, which is not an image slot`);
      usedSlots.add(slot);
    }
    const rest = md.replace(PAGE_LINK, '').replace(SLOT_IMAGE, '').replace(DATE, '');
    if (STRAY.test(rest)) fail(`page "${key}" has a malformed placeholder near "${rest.match(STRAY)![0]}"`);
  }
  for (const name of Object.keys(def.slots)) if (!usedSlots.has(name)) fail(`slot "${name}" is declared but never used`);
  return { ...def, bodies };
}

export const TEMPLATES: ReadonlyMap<string, LoadedTemplate> = new Map(
  [productDocs, apiReference, changelog, runbook].map((d) => [d.id, loadTemplate(d)]),
);

export function getTemplate(id: string): LoadedTemplate | undefined {
  return TEMPLATES.get(id);
}

/**
 * Instantiate a template: a fresh id per page (so applying twice gives two independent copies),
 * template links rewritten to the stable `/pages/<id>` form, image slots to `/files/<fileId>`
 * (or removed when not given), covers set from cover slots, `{{ template.date }}` to `date`.
 */
export function instantiateTemplate(
  t: LoadedTemplate,
  opts: { files: Record<string, string>; date: string; newId: () => string },
): TemplatePageInstance[] {
  const ids = new Map<string, string>();
  walk(t.pages, (p) => ids.set(p.key, opts.newId()));
  const render = (md: string) => {
    let out = md.replace(PAGE_LINK, (_m, key: string, hash: string | undefined) => `](/pages/${ids.get(key)}${hash ?? ''})`);
    for (const name of Object.keys(t.slots)) {
      if (t.slots[name].usage === 'image' && !opts.files[name]) out = out.replace(SLOT_IMAGE_LINE(name), '');
    }
    out = out.replace(SLOT_IMAGE, (_m, alt: string, name: string) => (opts.files[name] ? `![${alt}](/files/${opts.files[name]})` : ''));
    return out.replace(DATE, opts.date).replace(/^\n+/, '');
  };
  const build = (p: TemplatePageDef): TemplatePageInstance => {
    const coverFile = p.cover ? opts.files[p.cover] : undefined;
    return {
      id: ids.get(p.key)!,
      key: p.key,
      title: p.title,
      ...(p.emoji ? { emoji: p.emoji } : {}),
      ...(p.description ? { description: p.description } : {}),
      markdown: render(t.bodies.get(p.key)!),
      ...(coverFile ? { cover: { ref: { kind: 'file', file: coverFile }, yPos: 0 }, layout: { cover: true } } : {}),
      children: (p.children ?? []).map(build),
    };
  };
  return t.pages.map(build);
}

/** Public description of a template (the listing): the public `SpaceTemplate` fields we can fill, plus slots and outline. */
export function describeTemplate(t: TemplateDef) {
  const outline = (pages: TemplatePageDef[]): { title: string; pages?: unknown[] }[] =>
    pages.map((p) => ({ title: p.title, ...(p.children?.length ? { pages: outline(p.children) } : {}) }));
  return {
    object: 'space-template',
    id: t.id,
    title: t.title,
    subtitle: t.subtitle,
    emoji: t.emoji,
    features: t.features,
    contentRefs: Object.entries(t.slots).map(([name, s]: [string, TemplateSlot]) => ({ name, usage: s.usage, description: s.description })),
    pages: outline(t.pages),
  };
}
