import type { JobName } from '../src/queue/registry.js';
import { JOB_NAMES } from '../src/queue/registry.js';
import type { Processor } from './types.js';
import { processOpenAPISpec } from './openapi-process.js';
import { processPdfRender } from './render-pdf.js';
import { purgeSpaces } from './purge-spaces.js';
import { processGitImport } from './git-import.js';
import { processGitExport } from './git-export.js';
import { processGitSync } from './git-sync.js';
import { processGitSyncPoll } from './git-sync-poll.js';
import { processWebsiteImport } from './import-website.js';
import { processTranslationRun } from './translation-run.js';
import { processSearchIndex } from './search-index.js';
import { processLinksIndex } from './links-index.js';
import { pingWorkers } from './workers-ping.js';
import { processSitesRevalidate } from './sites-revalidate.js';
import { processInsightsAggregate } from './insights-aggregate.js';

/** Exactly one processor per job name: the mapped type makes a missing one a compile error. */
export const PROCESSORS: { [K in JobName]: Processor<K> } = {
  'openapi.process': processOpenAPISpec,
  'pdf.render': processPdfRender,
  'spaces.purge': purgeSpaces,
  'git.import': processGitImport,
  'git.export': processGitExport,
  'git.sync': processGitSync,
  'git.sync.poll': processGitSyncPoll,
  'import.website': processWebsiteImport,
  'translation.run': processTranslationRun,
  'search.index': processSearchIndex,
  'links.index': processLinksIndex,
  'workers.ping': pingWorkers,
  'sites.revalidate': processSitesRevalidate,
  'insights.aggregate': processInsightsAggregate,
};

/** Start-up check (also for plain JS callers): every registered job has exactly one processor. */
export function checkProcessors(processors: Record<string, unknown> = PROCESSORS): void {
  const missing = JOB_NAMES.filter((n) => typeof processors[n] !== 'function');
  const extra = Object.keys(processors).filter((n) => !(JOB_NAMES as string[]).includes(n));
  if (missing.length || extra.length) {
    throw new Error(`Job registry mismatch: missing processors [${missing.join(', ')}], unknown processors [${extra.join(', ')}]`);
  }
}
