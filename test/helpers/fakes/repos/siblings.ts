// Fake of src/db/repos/siblings.ts (the next position among an organization's top-level spaces).
import type * as real from '../../../../src/db/repos/siblings.js';
import { tables } from '../store.js';

export const nextPosition: typeof real.nextPosition = async (_db, orgId, parentId) =>
  Math.max(
    0,
    ...[...tables.spaces.values()]
      .filter((s) => s.organization_id === orgId && s.parent_id === parentId && !s.deleted_at)
      .map((s) => s.position),
  ) + 1;
