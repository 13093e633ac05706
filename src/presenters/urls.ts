import type { AppContext } from '../context.js';

/** Absolute URLs of the API (`/v1`) and of the application (`/app`) under the public URL. */
export function appUrls(app: AppContext) {
  const base = app.config.publicUrl;
  return {
    api: (path: string) => `${base}/v1${path}`,
    app: (path: string) => `${base}/app${path}`,
  };
}
