// The contract between the API (which enqueues) and the workers (which process): every job name,
// the queue it runs on, the payload it carries and its default options. The payload lives in the
// operation's PostgreSQL row, so a flushed Redis loses nothing; Redis holds `{ operationId }`, and
// a copy of the payload only for the jobs that start at once (`startsAtOnce`), whose payloads are
// ids: no secret (a git credential, say) ever sits in Redis.
import { ALL_QUEUES, type QueueName } from '../config.js';

export interface JobPayloads {
  /** Fetch (or read inline), parse, validate and store one version of an OpenAPI spec. */
  'openapi.process': { specId: string };
  /** Render one PDF export (a pdf_renders row: space, revision, page selection) with Chromium into the BlobStore. */
  'pdf.render': { renderId: string };
  /**
   * Permanently remove spaces deleted before `before` (default: SPACE_RETENTION_DAYS ago) with
   * their revisions, content and files' bytes no other space references, then drain blob_garbage.
   * Runs on a timer (workers/scheduler.ts) and may be enqueued by hand; idempotent and safe to run
   * concurrently.
   */
  'spaces.purge': { before?: string };
  /** Import a git branch into a space (or a standalone revision). Credentials are sealed. */
  'git.import': GitJobPayload;
  /** Commit the space's current content on top of a git branch and push it. */
  'git.export': GitJobPayload & { commitMessage: string };
  /**
   * One run of a Git Sync (src/services/git-sync/runs.ts): read the branch head, then import it,
   * export the space, or keep both sides in a change request. Ids only: the sync row holds the rest.
   */
  'git.sync': { syncId: string };
  /** Start a run of every Git Sync whose poll time passed or whose export is due (a timer: workers/scheduler.ts). */
  'git.sync.poll': Record<string, never>;
  /** Crawl a website and add its pages (and same-origin images) to a space or a change request. */
  'import.website': ImportWebsitePayload;
  /** Translate a space into its translation's result space (one new revision); see src/services/translation-run.ts. */
  'translation.run': { translationId: string };
  /**
   * Bring a space's search index up to its current revision (src/search/indexer.ts), after an
   * import wrote many pages at once: the import is readable when it commits, search follows here.
   */
  'search.index': { spaceId: string };
  /**
   * Store the links of every page body of a space's current revision, or of a change request's
   * current revision when `changeRequestId` is given (src/services/link-indexing.ts), after that
   * content changed: link, backlink and broken-link reads then parse nothing.
   */
  'links.index': { spaceId: string; changeRequestId?: string };
  /**
   * Does nothing: an operator's health check of a worker pool (`npm run cli -- workers ping`). It
   * goes through everything a real job does (durable operation row, queue, runner, final state), so
   * its round trip says whether the pool named by the operation's queue takes and finishes jobs.
   */
  'workers.ping': Record<string, never>;
  /** Tell GitBook's renderer (or a CDN) that a site's content changed: a signed POST of its cache tags (src/services/sites/revalidation.ts). */
  'sites.revalidate': { siteId: string };
  /**
   * Fold raw site insights events into hourly rollups and delete raw events older than
   * INSIGHTS_RETENTION_DAYS (src/services/sites/insights.ts). A timer (workers/scheduler.ts); idempotent.
   */
  'insights.aggregate': Record<string, never>;
}

export interface ImportWebsitePayload {
  spaceId: string;
  /** Import into this change request's content instead of the space's main content. */
  changeRequestId?: string;
  /** Start URL: the crawl stays on its origin and under its path. */
  url: string;
  /** Id of the revision the import creates, announced to the client when the import was accepted. */
  revisionId: string;
}

export interface GitJobPayload {
  spaceId: string;
  /** Remote URL without credentials. */
  url: string;
  /** Basic-auth credentials from the URL, encrypted with the server secret (src/git/credentials.ts). */
  credentials?: string;
  ref: string;
  repoCacheID?: string;
  repoTreeURL?: string;
  repoCommitURL?: string;
  repoProjectDirectory?: string;
  /** Orders the git operations of one space: one older than the last applied is skipped. */
  timestamp?: string;
  force?: boolean;
  standalone?: boolean;
  gitInfo?: { provider?: string; url?: string };
}

export type JobName = keyof JobPayloads;

export interface JobSpec {
  /** The queue its jobs run on (for a job with `anyQueue`, the default one). */
  queue: QueueName;
  /** The caller names the queue (a health check of each pool); the operation row keeps it. */
  anyQueue?: boolean;
  /** Attempts override; defaults to config.workers.attempts. */
  attempts?: number;
  /** Human description for the dashboard and README. */
  description: string;
  /**
   * The processor begins as soon as BullMQ hands the job over, its claim of the operation on its
   * way meanwhile (workers/runner.ts), instead of after it. Only for a job whose payload holds no
   * secret (it travels in the BullMQ job), whose processor gets no `operation`, progress or fence
   * (a `RunContext`), and whose work is safe to do twice at once: a run that turns out not to hold
   * the operation drops its outcome, but its work is done.
   */
  startsAtOnce?: boolean;
}

export const JOBS = {
  'openapi.process': { queue: 'openapi', description: 'Fetch, parse, validate and store an OpenAPI spec version' },
  'pdf.render': { queue: 'pdf', description: 'Render a space or change request export to PDF' },
  'spaces.purge': {
    queue: 'maintenance',
    description: 'Permanently remove spaces deleted more than the retention period ago, and unreferenced blobs',
  },
  'git.import': { queue: 'git', description: 'Import a git branch into a space' },
  'git.export': { queue: 'git', description: 'Export a space to a git branch' },
  'git.sync': { queue: 'git', description: 'Git Sync run: import a pushed branch, export a change, or record a conflict' },
  'git.sync.poll': { queue: 'git', description: 'Start the Git Sync runs whose poll time passed or whose export is due' },
  'import.website': { queue: 'import', description: 'Import a website into a space or a change request' },
  'translation.run': { queue: 'translation', description: "Translate a space's changed pages into its translation's result space" },
  'search.index': {
    queue: 'search',
    startsAtOnce: true,
    description: "Bring a space's search index up to its current revision after an import",
  },
  'links.index': {
    queue: 'search',
    startsAtOnce: true,
    description: "Store the links of a space's (or a change request's) current revision, so that link reads parse nothing",
  },
  'sites.revalidate': {
    queue: 'maintenance',
    attempts: 6,
    description: "Tell GitBook's renderer (or a CDN) that a site changed: a signed POST of its cache tags",
  },
  'workers.ping': {
    queue: 'maintenance',
    anyQueue: true,
    startsAtOnce: true,
    description: 'Health check of a worker pool: a job that does nothing',
  },
  'insights.aggregate': {
    queue: 'maintenance',
    description: 'Fold site insights events into hourly rollups and delete raw events past their retention',
  },
} as const satisfies { readonly [K in JobName]: JobSpec };

/** The jobs whose processor starts before its claim is back (`startsAtOnce`). */
export type AtOnceJobName = { [K in JobName]: (typeof JOBS)[K] extends { startsAtOnce: true } ? K : never }[JobName];

/** Whether jobs named `name` start at once (see `JobSpec.startsAtOnce`). */
export function startsAtOnce(name: JobName): name is AtOnceJobName {
  return (JOBS[name] as JobSpec).startsAtOnce === true;
}

/** The queue an operation of `kind` runs on: `requested` when the job lets its caller choose, else the registry's. */
export function queueFor(kind: JobName, requested?: string | null): QueueName {
  const spec: JobSpec = JOBS[kind];
  return spec.anyQueue && requested && (ALL_QUEUES as readonly string[]).includes(requested) ? (requested as QueueName) : spec.queue;
}

export const JOB_NAMES = Object.keys(JOBS) as JobName[];

/** What a BullMQ job carries. */
export interface JobData {
  operationId: string;
  /** A copy of the operation's payload, for a job that starts at once only (see `JobSpec.startsAtOnce`). */
  payload?: Record<string, unknown>;
}

export function isJobName(name: string): name is JobName {
  return Object.prototype.hasOwnProperty.call(JOBS, name);
}
