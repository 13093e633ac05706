// Link lists, backlinks and broken links of a revision's content (see src/content/links.ts for how
// links are found and resolved). Every read takes a LinkScope: a ContentTarget (the space's current
// revision, or a change request's) plus what is needed to present references.
//
// The index a read needs is built ahead: the `links.index` job stores the links of every body after
// the space's content changed (src/services/link-indexing.ts), and a read resolves them in memory.
// What is not stored yet (the job still running, a change request's edited pages) the read parses
// itself, for at most LINK_INDEX_WAIT_MS: past it the read answers 503 with Retry-After (kind
// `unavailable`) and the build goes on, its work stored, so a retry finds it done or further along.
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import type { Role } from '../core/roles.js';
import type { SpaceRow } from '../db/repos/spaces.js';
import { getOrgForUser } from '../db/repos/organizations.js';
import { notFound, unavailable } from '../core/errors.js';
import { pageInMemory, type ListPage } from '../core/pagination.js';
import {
  cachedLinkIndex,
  loadLinkIndex,
  linkStats,
  type LinkGroup,
  type LinkIndex,
  type LinkStats,
  type LinkStatus,
  type LinkTarget,
} from '../content/links.js';
import type { Snapshot, TreePage } from '../content/snapshot.js';
import { toFile, toTreePage } from '../presenters/content.js';
import type { FileNode } from '../content/types.js';
import { requireSpace } from '../policies/spaces.js';
import { getSpace } from '../db/repos/spaces.js';
import { requireChangeRequest } from '../policies/change-requests.js';
import { presentSpace as toSpace } from './spaces.js';
import { presentOrganization as toOrganization } from './organizations.js';
import { findPage, targetSnapshot, type ContentTarget } from './content.js';

export interface LinkScope {
  target: ContentTarget;
  space: SpaceRow;
  /** The caller's role on the space (the Space objects of references carry its permissions). */
  role: Role;
  /** Default `{type: 'revision', revision: <id>}`; a change request may name itself instead. */
  versionContext?: Record<string, unknown>;
  /** Revision a change request started from: `stats.broken.changeRequest` counts what it broke. */
  baseline?: ContentTarget;
}

/** The space's main content, readable by the caller (invisible spaces are a 404). */
export async function mainLinkScope(app: AppContext, p: Principal, spaceId: string): Promise<LinkScope> {
  const { space, role } = await requireSpace(app.db, p, spaceId, 'read', { counters: true });
  return { target: { spaceId, revisionId: space.revision_id, organizationId: space.organization_id }, space, role };
}

/** A change request's content; broken links it introduced (against its base) count in stats.broken.changeRequest. */
export async function changeRequestLinkScope(app: AppContext, p: Principal, spaceId: string, ref: string): Promise<LinkScope> {
  const { role, cr } = await requireChangeRequest(app, p, spaceId, ref);
  const space = (await getSpace(app.db, spaceId))!; // with its counters: references present it
  const base = cr.revision_merged_ancestor ?? cr.revision_initial;
  return {
    target: { spaceId, revisionId: cr.revision, organizationId: space.organization_id },
    space,
    role,
    baseline: { spaceId, revisionId: base, organizationId: space.organization_id },
  };
}

interface ListQuery {
  page?: string;
  limit?: number;
}

export type LinkList = ListPage<unknown> & { stats: LinkStats };

/**
 * Builds references (`{kind, organization, space, versionContext, page|file}`) for one request: the
 * Organization and Space objects are built once and shared by every reference of the response.
 *
 * `versionContext.revision` is the revision ID (as `Space.revision` is), not the Revision object the
 * public description's ContentLocation embeds: that object holds the whole page tree, and a list
 * carries one per reference. A page is given as the tree listing shows it, without its `pages`
 * children (a reference names one page, not its subtree).
 */
class References {
  private readonly pages = new Map<string, Record<string, unknown>>();
  private readonly base: { organization: unknown; space: unknown; versionContext: unknown };

  constructor(
    private readonly app: AppContext,
    private readonly scope: LinkScope,
    private readonly snapshot: Snapshot,
    organization: unknown,
  ) {
    this.base = {
      organization,
      space: toSpace(app, scope.space, scope.role),
      versionContext: scope.versionContext ?? { type: 'revision', revision: scope.target.revisionId },
    };
  }

  static async create(app: AppContext, p: Principal, scope: LinkScope, snapshot: Snapshot) {
    const org = await getOrgForUser(app.db, scope.target.organizationId, p.userId);
    if (!org) throw notFound(`Organization "${scope.target.organizationId}" not found`);
    return new References(app, scope, snapshot, toOrganization(app, org));
  }

  page(tp: TreePage, anchor?: string) {
    let page = this.pages.get(tp.node.id);
    if (!page) {
      page = toTreePage(this.app, this.scope.target.spaceId, { ...tp, children: [] }, { metadata: true, computed: true });
      delete page.pages;
      delete page.documentId;
      this.pages.set(tp.node.id, page);
    }
    return {
      kind: 'page',
      organization: this.base.organization,
      space: this.base.space,
      versionContext: this.base.versionContext,
      page,
      ...(anchor ? { internalLocation: { type: 'anchor', anchor } } : {}),
    };
  }

  file(f: FileNode) {
    return {
      kind: 'file',
      organization: this.base.organization,
      space: this.base.space,
      versionContext: this.base.versionContext,
      file: toFile(this.app, f, { metadata: true, computed: true }),
    };
  }

  target(t: LinkTarget) {
    switch (t.kind) {
      case 'page':
        return this.page(this.snapshot.byId.get(t.page)!, t.anchor);
      case 'file':
        return this.file(this.snapshot.filesById.get(t.file)!);
      case 'url':
      case 'broken':
        return { kind: 'url', url: t.url };
    }
  }

  item(g: LinkGroup) {
    return {
      status: g.status,
      relation: g.relation,
      targetReference: this.target(g.target),
      locationReferences: g.sources.map((id) => this.page(this.snapshot.byId.get(id)!)),
    };
  }
}

/** Seconds a client is told to wait before asking again for a list whose index is being built. */
const RETRY_AFTER_S = 2;

/**
 * The link index of a snapshot, waiting for its build until `deadline` (performance.now() ms) at
 * most: past it, a 503 (the build goes on without the request, its work kept).
 */
async function indexOf(app: AppContext, snapshot: Snapshot, revisionId: string, deadline: number): Promise<LinkIndex> {
  const opts = { publicUrl: app.config.publicUrl };
  const cached = cachedLinkIndex(snapshot, opts);
  if (cached) return cached;
  const build = loadLinkIndex(app.db, snapshot, opts, (mds) => app.markdown.linksOrTimedOut(mds));
  const notReady = () =>
    unavailable(`The link index of revision "${revisionId}" is being built; retry in ${RETRY_AFTER_S} seconds`, RETRY_AFTER_S);
  const waitMs = deadline - performance.now();
  if (waitMs <= 0) {
    build.catch((err) => app.log.error({ err, spaceId: snapshot.spaceId }, 'link index build failed'));
    throw notReady();
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(notReady()), waitMs);
  });
  try {
    return await Promise.race([build, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const deadlineOf = (app: AppContext) => performance.now() + app.config.linkIndexWaitMs;

/** The scope's snapshot and link index; `check` runs on the snapshot first (a 404 never waits for the index). */
async function load(app: AppContext, scope: LinkScope, check: (snapshot: Snapshot) => void = () => {}) {
  const deadline = deadlineOf(app);
  const { snapshot } = await targetSnapshot(app.db, scope.target);
  check(snapshot);
  const index = await indexOf(app, snapshot, scope.target.revisionId, deadline);
  return { snapshot, index, deadline };
}

async function baselineGroups(app: AppContext, scope: LinkScope, deadline: number, pick: (index: LinkIndex) => LinkGroup[]) {
  if (!scope.baseline) return undefined;
  const { snapshot } = await targetSnapshot(app.db, scope.baseline);
  return pick(await indexOf(app, snapshot, scope.baseline.revisionId, deadline));
}

async function linkList(
  app: AppContext,
  p: Principal,
  scope: LinkScope,
  snapshot: Snapshot,
  groups: LinkGroup[],
  baseline: LinkGroup[] | undefined,
  q: ListQuery & { status?: LinkStatus },
): Promise<LinkList> {
  const refs = await References.create(app, p, scope, snapshot);
  const selected = q.status ? groups.filter((g) => g.status === q.status) : groups;
  const page = pageInMemory(
    selected,
    q,
    (g) => g.sortKey,
    (g) => refs.item(g),
  );
  return { ...page, stats: linkStats(groups, baseline) };
}

/** Every link of the content, one item per target (with every page linking to it). */
export async function listSpaceLinks(app: AppContext, p: Principal, scope: LinkScope, q: ListQuery & { status?: LinkStatus }) {
  const { snapshot, index, deadline } = await load(app, scope);
  const baseline = await baselineGroups(app, scope, deadline, (i) => i.groups);
  return linkList(app, p, scope, snapshot, index.groups, baseline, q);
}

/** Links of one page. */
export async function listPageLinks(
  app: AppContext,
  p: Principal,
  scope: LinkScope,
  pageId: string,
  q: ListQuery & { status?: LinkStatus },
) {
  const { snapshot, index, deadline } = await load(app, scope, (snap) => findPage(snap, pageId));
  const baseline = await baselineGroups(app, scope, deadline, (i) => i.pageGroups(pageId));
  return linkList(app, p, scope, snapshot, index.pageGroups(pageId), baseline, q);
}

/** References of the pages linking to a list of sources, ordered by (path, id). */
async function backlinkList(app: AppContext, p: Principal, scope: LinkScope, snapshot: Snapshot, sources: string[], q: ListQuery) {
  const refs = await References.create(app, p, scope, snapshot);
  const pages = sources.map((id) => snapshot.byId.get(id)!);
  return pageInMemory(
    pages,
    q,
    (tp) => [tp.path, tp.node.id],
    (tp) => refs.page(tp),
  );
}

/** Pages that link to a page (other than itself). */
export async function listPageBacklinks(app: AppContext, p: Principal, scope: LinkScope, pageId: string, q: ListQuery) {
  const { snapshot, index } = await load(app, scope, (snap) => findPage(snap, pageId));
  return backlinkList(app, p, scope, snapshot, index.pageBacklinks.get(pageId) ?? [], q);
}

/** Pages that link to a file or show it. */
export async function listFileBacklinks(app: AppContext, p: Principal, scope: LinkScope, fileId: string, q: ListQuery) {
  const { snapshot, index } = await load(app, scope, (snap) => {
    if (!snap.filesById.has(fileId)) throw notFound(`File "${fileId}" not found`);
  });
  return backlinkList(app, p, scope, snapshot, index.fileBacklinks.get(fileId) ?? [], q);
}
