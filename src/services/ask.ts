// Questions answered from the documentation: askInOrganization, streamAskInOrganization and
// streamAskInSite (the 0.202.0 description), and the reader site's Ask box. Each answer is built
// from search results the asker may already read, chosen before anything reaches the answering
// back-end (filter before retrieval): an organization's spaces the member can see, a site's spaces
// the member can read, or, on the reader site, the pages that reader may see (hidden pages, other
// variants and what adaptive conditions hide never leave the search). The back-end (src/answer/)
// quotes or summarizes those passages and cites them; sources list the pages used.
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import type { ConditionContext } from '../sites/conditions.js';
import { invalid } from '../core/errors.js';
import { requireOrg } from '../policies/organizations.js';
import { visibleSpaces } from '../policies/spaces.js';
import { spacesByIds } from '../db/repos/site-structure.js';
import { markdownToDocument } from '../content/markdown/to-document.js';
import { terms } from '../answer/extractive.js';
import { answerBackend, MAX_PASSAGES, MAX_PASSAGE_CHARS, MAX_QUESTION_CHARS, type AnswerBackend, type Passage } from '../answer/index.js';
import { searchSpaceSet } from './search.js';
import { searchSite, type SiteSearchBody } from './sites/search.js';
import { searchReadable } from './sites/agents.js';
import type { ServedSite } from './sites/reader.js';

export type AnswerFormat = 'markdown' | 'document';

/** SearchAIAnswer of the description. */
export interface AiAnswer {
  answer: { markdown: string } | { document: unknown } | Record<string, never>;
  followupQuestions: string[];
  sources: { type: 'page'; page: string; revision: string; space: string; sections: string[]; reason?: string }[];
}

/** What the reader site's Ask box shows: the answer and the pages it cites (links into the site). */
export interface ReaderAnswer {
  question: string;
  markdown: string;
  sources: { title: string; url: string; section: string | null }[];
}

const backends = new WeakMap<AppContext, AnswerBackend>();
function backendOf(app: AppContext): AnswerBackend {
  let b = backends.get(app);
  if (!b)
    backends.set(
      app,
      (b = answerBackend({ ...app.config.ask, allowPrivate: app.config.ask.allowPrivate || app.config.fetch.allowPrivate })),
    );
  return b;
}

function question(q: string): string {
  const text = q.trim();
  if (!text) throw invalid('Invalid request: the question is empty');
  if (text.length > MAX_QUESTION_CHARS) throw invalid(`Invalid request: the question is longer than ${MAX_QUESTION_CHARS} characters`);
  return text;
}

/**
 * The search text of a question: its words (stop words dropped) joined by `or` (websearch syntax),
 * so a question in a sentence still finds the pages that share most of its words, ranked first.
 */
export function retrievalQuery(q: string): string {
  const words = [...new Set(terms(q))].slice(0, 12);
  return words.length ? words.join(' or ') : q;
}

const clip = (s: string) => (s.length > MAX_PASSAGE_CHARS ? `${s.slice(0, MAX_PASSAGE_CHARS - 1)}…` : s);

type FoundPage = {
  id: string;
  title: string;
  description?: string;
  sections?: { id?: string | null; body?: string }[];
  urls: { app: string };
};

/** Passages from grouped search results (organization and site search over readable spaces). */
async function passagesOf(app: AppContext, items: { id: string; pages: FoundPage[] }[]): Promise<Passage[]> {
  const revisions = new Map(
    (
      await spacesByIds(
        app.db,
        items.map((s) => s.id),
        { counters: false },
      )
    ).map((s) => [s.id, s.revision_id]),
  );
  const out: Passage[] = [];
  for (const s of items)
    for (const p of s.pages) {
      const sections = (p.sections ?? []).filter((x) => x.body);
      out.push({
        title: p.title,
        url: p.urls.app,
        section: null,
        text: clip(sections.map((x) => x.body).join('\n') || p.description || ''),
        spaceId: s.id,
        pageId: p.id,
        revisionId: revisions.get(s.id) ?? '',
        sectionIds: sections.flatMap((x) => (x.id ? [x.id] : [])),
      });
    }
  return out.slice(0, MAX_PASSAGES);
}

function toAiAnswer(markdown: string, passages: Passage[], used: number[], format: AnswerFormat): AiAnswer {
  const seen = new Set<string>();
  const sources: AiAnswer['sources'] = [];
  for (const i of used) {
    const p = passages[i];
    if (!p || seen.has(`${p.spaceId}:${p.pageId}`)) continue;
    seen.add(`${p.spaceId}:${p.pageId}`);
    sources.push({
      type: 'page',
      page: p.pageId,
      revision: p.revisionId,
      space: p.spaceId,
      sections: p.sectionIds,
      reason: 'Quoted in the answer',
    });
  }
  return {
    answer: format === 'document' ? { document: markdownToDocument(markdown) } : { markdown },
    followupQuestions: [],
    sources,
  };
}

/**
 * The answer as it grows (each value the whole answer so far, sources only on the last), bounded
 * by ASK_TIMEOUT_MS. `signal` aborts it (the client went away).
 */
async function* answering(
  app: AppContext,
  q: string,
  passages: Passage[],
  signal?: AbortSignal,
  latestOnly = false,
): AsyncGenerator<{ markdown: string; used: number[] | null }> {
  const backend = backendOf(app);
  const timeout = AbortSignal.timeout(app.config.ask.timeoutMs);
  const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  let result: { markdown: string; used: number[] } | undefined;
  let failure: unknown;
  void backend
    .answer(q, passages, { signal: both, onText: (t) => (queue.push(t), wake?.()) })
    .then(
      (r) => (result = r),
      (e: unknown) => (failure = e),
    )
    .finally(() => {
      done = true;
      wake?.();
    });
  for (;;) {
    if (queue.length) {
      // Each text is the whole answer so far: a consumer that renders every step may skip to the newest.
      if (latestOnly && queue.length > 1) queue.splice(0, queue.length - 1);
      const t = queue.shift()!;
      if (!done || queue.length) yield { markdown: t, used: null };
      continue;
    }
    if (done) break;
    await new Promise<void>((r) => (wake = r));
    wake = undefined;
  }
  if (failure) throw failure;
  yield result!;
}

async function orgPassages(app: AppContext, p: Principal, orgId: string, q: string): Promise<Passage[]> {
  await requireOrg(app.db, p, orgId, 'view');
  const visible = await visibleSpaces(app, orgId, p.userId);
  const found = await searchSpaceSet(
    app,
    visible.map((v) => v.space.id),
    { query: retrievalQuery(q), limit: MAX_PASSAGES },
    `ask:${orgId}`,
  );
  return passagesOf(app, found.items as { id: string; pages: FoundPage[] }[]);
}

async function* streamed(app: AppContext, q: string, passages: Passage[], format: AnswerFormat, signal?: AbortSignal) {
  for await (const step of answering(app, q, passages, signal))
    yield { type: 'answer' as const, answer: toAiAnswer(step.markdown, passages, step.used ?? [], format) };
}

export async function askInOrganization(app: AppContext, p: Principal, orgId: string, query: string, format: AnswerFormat) {
  const q = question(query);
  const passages = await orgPassages(app, p, orgId, q);
  let last: AiAnswer | undefined;
  for await (const step of streamed(app, q, passages, format)) last = step.answer;
  return { answer: last! };
}

/** Checks access and the question first (so a refusal is an error status), then the answer's events. */
export async function streamAskInOrganization(
  app: AppContext,
  p: Principal,
  orgId: string,
  query: string,
  format: AnswerFormat,
  signal?: AbortSignal,
) {
  const q = question(query);
  const passages = await orgPassages(app, p, orgId, q);
  return streamed(app, q, passages, format, signal);
}

export async function streamAskInSite(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  body: { question: string; scope?: SiteSearchBody['scope'] },
  format: AnswerFormat,
  signal?: AbortSignal,
) {
  const q = question(body.question);
  const found = await searchSite(
    app,
    p,
    orgId,
    siteId,
    { query: retrievalQuery(q), scope: body.scope ?? { mode: 'default' } },
    { limit: MAX_PASSAGES },
  );
  const passages = await passagesOf(app, found.items as { id: string; pages: FoundPage[] }[]);
  return streamed(app, q, passages, format, signal);
}

/** One step of the reader's answer: the whole answer so far; `sources` only on the last. */
export interface ReaderAnswerStep {
  markdown: string;
  sources: ReaderAnswer['sources'] | null;
}

/**
 * The reader site's Ask box, as it grows: passages from what this reader may see, links into the
 * site. Checks the question and searches first (a refusal is an error status), then returns the
 * steps; a consumer slower than the back-end gets the newest text only, never a backlog.
 */
export async function streamAskReaderSite(
  app: AppContext,
  site: ServedSite,
  ctx: ConditionContext,
  query: string,
  signal?: AbortSignal,
): Promise<{ question: string; steps: AsyncGenerator<ReaderAnswerStep> }> {
  const q = question(query);
  const hits = await searchReadable(app, site, ctx, retrievalQuery(q), MAX_PASSAGES);
  const passages: Passage[] = hits.map((h) => ({
    title: h.title,
    url: h.url,
    section: h.section,
    text: clip(h.sections.map((s) => s.body).join('\n') || h.snippet),
    spaceId: h.spaceId,
    pageId: h.pageId,
    revisionId: h.revisionId,
    sectionIds: h.sections.flatMap((s) => (s.id ? [s.id] : [])),
  }));
  async function* steps(): AsyncGenerator<ReaderAnswerStep> {
    for await (const step of answering(app, q, passages, signal, true))
      yield {
        markdown: step.markdown,
        sources: step.used && step.used.map((i) => ({ title: passages[i].title, url: passages[i].url, section: passages[i].section })),
      };
  }
  return { question: q, steps: steps() };
}

/** The reader site's Ask box, answered whole (its JSON endpoint and the Ask page). */
export async function askReaderSite(app: AppContext, site: ServedSite, ctx: ConditionContext, query: string): Promise<ReaderAnswer> {
  const { question: q, steps } = await streamAskReaderSite(app, site, ctx, query);
  let last: ReaderAnswerStep | undefined;
  for await (const step of steps) last = step;
  return { question: q, markdown: last?.markdown ?? '', sources: last?.sources ?? [] };
}
