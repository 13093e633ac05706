// Where the test suite finds its real services; override with TEST_PG_ADMIN_URL / TEST_REDIS_URL.
export const TEST_PG_ADMIN_URL = process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function databaseUrl(name: string): string {
  const u = new URL(TEST_PG_ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

/** The Chromium the tests drive and the test app's PDF workers launch; override with CHROMIUM_PATH. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
