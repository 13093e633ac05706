import type { Processor } from './types.js';
import { asJobFailure } from './failures.js';
import { pollGitSyncs } from '../src/services/git-sync/polling.js';

/** 'git.sync.poll' (a timer): start the runs of the syncs whose poll time passed or whose export is due. */
export const processGitSyncPoll: Processor<'git.sync.poll'> = (_payload, ctx) => pollGitSyncs(ctx.app).catch(asJobFailure);
