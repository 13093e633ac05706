import type { Queryable } from './pool.js';

/**
 * `UPDATE <table> SET <col> = <value>, ..., updated_at = now() WHERE id = $1` for the fields of
 * `patch` that `columns` maps (API field -> column); undefined fields are left alone. Table and
 * column names come from the caller's constant map, never from input. Returns false when nothing
 * was to be set.
 */
export async function updateColumns(
  db: Queryable,
  table: 'organizations' | 'spaces' | 'collections',
  id: string,
  patch: object,
  columns: Readonly<Record<string, string>>,
  encode: (column: string, value: unknown) => unknown = (_c, v) => v,
): Promise<boolean> {
  const sets: string[] = [];
  const params: unknown[] = [id];
  for (const [field, value] of Object.entries(patch)) {
    const column = columns[field];
    if (!column || value === undefined) continue;
    params.push(encode(column, value));
    sets.push(`${column} = $${params.length}`);
  }
  if (!sets.length) return false;
  await db.query(`UPDATE ${table} SET ${sets.join(', ')}, updated_at = clock_timestamp() WHERE id = $1`, params);
  return true;
}
