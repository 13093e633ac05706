import type { Processor } from './types.js';
import { asJobFailure } from './failures.js';
import { runGitSync } from '../src/services/git-sync/runs.js';

/** One Git Sync run: import, export or record a conflict (src/services/git-sync/runs.ts). */
export const processGitSync: Processor<'git.sync'> = (payload, ctx) => runGitSync(ctx.app, payload, ctx).catch(asJobFailure);
