import pg from 'pg';

/**
 * Create the configured database when it does not exist yet (first start on a fresh machine),
 * connecting to the server's maintenance database. Racing creators are fine: "already exists" is success.
 */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const probe = new pg.Client({ connectionString: databaseUrl });
  try {
    await probe.connect();
    return false;
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000') throw err;
  } finally {
    await probe.end().catch(() => {});
  }
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === '42P04') return false; // created concurrently
    throw err;
  } finally {
    await admin.end();
  }
}
