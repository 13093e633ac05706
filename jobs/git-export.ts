import type { Processor } from './types.js';
import { asJobFailure } from './failures.js';
import { runGitExport } from '../src/services/git-runs.js';

/** Commit the space's current content on the branch and push it, in the space's git order (src/services/git-runs.ts). */
export const processGitExport: Processor<'git.export'> = (payload, ctx) => runGitExport(ctx.app, payload, ctx).catch(asJobFailure);
