import type { AppContext } from '../context.js';

/** Placeholder until the search index lands: keeps the search index following the current revision. */
export async function reindexSpace(_app: AppContext, _spaceId: string): Promise<void> {}
