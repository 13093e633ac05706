import type { Processor } from './types.js';
import { asJobFailure } from './failures.js';
import { runGitImport } from '../src/services/git-runs.js';

/** Import a branch into a space, once per operation, in the space's git order (src/services/git-runs.ts). */
export const processGitImport: Processor<'git.import'> = (payload, ctx) => runGitImport(ctx.app, payload, ctx).catch(asJobFailure);
