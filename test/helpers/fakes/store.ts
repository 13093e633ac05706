// In-memory tables for unit tests of services, without PostgreSQL. Services call repo modules
// (src/db/repos/*: all SQL lives there); a test replaces the ones its service uses with the fakes
// beside this file (`vi.mock('<repo module>', () => import('<fake>'))`), which read and write these
// Maps. `fakeDb` stands in for the pool: `withTx` gets a client whose BEGIN takes a copy of every
// table and whose ROLLBACK puts it back, so a service that throws half-way leaves the tables as a
// real transaction would. Any other statement fails the test: a repo that is not faked shows up
// at once instead of passing unnoticed.
//
// Rows are stored as the repos return them (snake_case) and handed out as copies, as a database
// would: a service holding a row does not see later writes through it.
import type { Db } from '../../../src/db/pool.js';
import type { GitSyncStateRow } from '../../../src/db/repos/git-sync.js';
import type { OperationRow } from '../../../src/db/repos/operations.js';
import type { OrgRow } from '../../../src/db/repos/organizations.js';
import type { RevisionRow } from '../../../src/db/repos/revisions.js';
import type { ShareLinkRow } from '../../../src/db/repos/site-share-links.js';
import type { GroupRow, SectionRow, SiteSpaceRow } from '../../../src/db/repos/site-structure.js';
import type { SiteRow } from '../../../src/db/repos/sites.js';
import type { SpaceRow } from '../../../src/db/repos/spaces.js';
import type { GlossaryRow, TranslationRow } from '../../../src/db/repos/translations.js';

/** A site as stored: the computed columns of SiteRow (counts, organization hosts) are added on read. */
export type StoredSite = Omit<SiteRow, 'site_spaces' | 'org_hostname' | 'org_custom_hostname' | 'org_default_site'> & {
  created_by: string;
};
export type StoredTranslation = Omit<TranslationRow, 'total_pages'>;

function emptyTables() {
  return {
    orgs: new Map<string, OrgRow>(),
    /** `${orgId} ${userId}` -> membership. */
    members: new Map<string, { role: string | null; disabled: boolean }>(),
    spaces: new Map<string, SpaceRow>(),
    /** `${spaceId} ${userId}` -> explicit role on the space. */
    spaceGrants: new Map<string, string>(),
    revisions: new Map<string, RevisionRow>(),
    /** `${spaceId} ${hash}` -> content object. */
    objects: new Map<string, unknown>(),
    /** `${spaceId} ${blobKey}`. */
    spaceBlobs: new Set<string>(),
    sites: new Map<string, StoredSite>(),
    /** `${siteId} ${userId}` -> role. */
    siteUserGrants: new Map<string, string>(),
    sections: new Map<string, SectionRow>(),
    groups: new Map<string, GroupRow>(),
    siteSpaces: new Map<string, SiteSpaceRow>(),
    shareLinks: new Map<string, ShareLinkRow>(),
    operations: new Map<string, OperationRow>(),
    gitSync: new Map<string, GitSyncStateRow>(),
    translations: new Map<string, StoredTranslation>(),
    /** translation id -> page id -> source hash. */
    translationPages: new Map<string, Map<string, string>>(),
    /** translation id -> memory key -> translated text. */
    translationMemory: new Map<string, Map<string, string>>(),
    glossary: new Map<string, GlossaryRow>(),
  };
}

export type Tables = ReturnType<typeof emptyTables>;

/** The tables of the running test file (each test file runs in its own module graph). */
export const tables: Tables = emptyTables();

let tick = 0;
/** A clock that moves forward 1 ms per call, so that creation order is also timestamp order. */
export function now(): Date {
  return new Date(Date.UTC(2025, 0, 1) + ++tick);
}

/** Copies of rows, as a query answers them. */
export const copy = <T>(row: T): T => structuredClone(row);

export const key = (...parts: (string | null)[]) => parts.join(' ');

/** Statements the fake database received outside the repos (transaction control), for assertions. */
export const transactions = { begun: 0, committed: 0, rolledBack: 0 };

/** Empties every table (call in beforeEach). */
export function resetTables(): void {
  Object.assign(tables, emptyTables());
  Object.assign(transactions, { begun: 0, committed: 0, rolledBack: 0 });
}

function unexpected(text: string): never {
  throw new Error(`fake db: unexpected statement (fake the repo that sends it): ${text.replace(/\s+/g, ' ').slice(0, 200)}`);
}

function statementText(q: unknown): string {
  return typeof q === 'string' ? q : String((q as { text?: string })?.text ?? q);
}

/**
 * The pool as services see it: `connect()` gives a client for `withTx` (BEGIN copies the tables,
 * ROLLBACK restores them); every other statement is refused.
 */
export function fakeDb(): Db {
  const client = {
    async query(q: unknown) {
      const text = statementText(q).trim().toUpperCase();
      if (text === 'BEGIN') {
        saved = structuredClone(tables);
        transactions.begun++;
      } else if (text === 'COMMIT') {
        saved = null;
        transactions.committed++;
      } else if (text === 'ROLLBACK') {
        if (saved) Object.assign(tables, saved);
        saved = null;
        transactions.rolledBack++;
      } else unexpected(statementText(q));
      return { rows: [], rowCount: 0 };
    },
    release() {},
  };
  let saved: Tables | null = null;
  return {
    connect: async () => client,
    query: async (q: unknown) => unexpected(statementText(q)),
    end: async () => {},
    on: () => undefined,
  } as unknown as Db;
}
