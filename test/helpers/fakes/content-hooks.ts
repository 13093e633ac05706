// Fake of src/services/content-hooks.ts: records which spaces' current revision changed (the real
// one bumps site versions and reindexes search, which have their own tests).
import type * as real from '../../../src/services/content-hooks.js';

export const changedSpaces: { spaceId: string; via: 'change' | 'import' }[] = [];

export const afterContentChange: typeof real.afterContentChange = async (_app, spaceId) =>
  void changedSpaces.push({ spaceId, via: 'change' });

export const afterImport: typeof real.afterImport = async (_app, spaceId) => void changedSpaces.push({ spaceId, via: 'import' });
