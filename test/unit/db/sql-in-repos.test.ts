// All SQL lives in src/db/repos (one module per table or query family). This reads the sources as
// text and fails on a SQL statement anywhere else, so a query cannot creep back into a service,
// an engine, a route or a job.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const SCANNED = ['src', 'jobs', 'workers'];
// The SQL layer itself: repositories, plus the pool (transactions), the migrator and the database
// creation, which run DDL and transaction control, not queries of the domain.
const ALLOWED = [/^src\/db\/repos\//, /^src\/db\/(pool|migrate|ensure-database)\.ts$/];
const STATEMENT =
  /\b(SELECT\s+[\w*(]|INSERT\s+INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|pg_(try_)?advisory_(xact_)?lock|CREATE\s+(TABLE|INDEX)\s|WITH\s+\w+\s+AS\s*\()/; // uppercase SQL, as the code base writes it

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** String literals and template literals of a source file (comments are not code). */
function literals(source: string): string[] {
  return [...source.matchAll(/`(?:[^`\\]|\\.)*`|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g)].map((m) => m[0]);
}

describe('SQL lives in src/db/repos', () => {
  it('finds no SQL statement in a string outside the repositories', () => {
    const offenders: string[] = [];
    for (const file of SCANNED.flatMap((d) => files(path.join(ROOT, d)))) {
      const rel = path.relative(ROOT, file).split(path.sep).join('/');
      if (ALLOWED.some((re) => re.test(rel))) continue;
      for (const lit of literals(readFileSync(file, 'utf8'))) {
        if (STATEMENT.test(lit)) offenders.push(`${rel}: ${lit.slice(0, 80).replace(/\s+/g, ' ')}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('would notice one (the check itself works)', () => {
    expect(literals("const q = 'SELECT id FROM spaces WHERE id = $1';").some((l) => STATEMENT.test(l))).toBe(true);
    expect(literals('db.query(`UPDATE spaces SET title = $2 WHERE id = $1`)').some((l) => STATEMENT.test(l))).toBe(true);
    expect(literals("log.info('select a page to continue')").some((l) => STATEMENT.test(l))).toBe(false);
  });
});
