import type { AppContext } from '../context.js';

interface AppUrls {
  api(path: string): string;
  app(path: string): string;
}

const made = new WeakMap<AppContext, AppUrls>();

/**
 * Absolute URLs of the API (`/v1`) and of the application (`/app`) under the public URL. Made
 * once per context (presenters call this for every object they map).
 */
export function appUrls(app: AppContext): AppUrls {
  let urls = made.get(app);
  if (!urls) {
    const base = app.config.publicUrl;
    urls = { api: (path) => `${base}/v1${path}`, app: (path) => `${base}/app${path}` };
    made.set(app, urls);
  }
  return urls;
}
