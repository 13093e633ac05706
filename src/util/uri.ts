/** `decodeURIComponent`, or the text as it is when it is not valid percent-encoding (never throws). */
export function decodeOrKeep(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Why `s` is not an absolute http or https URL (what a link readers follow may be), or null when it is one. */
export function httpUrlError(s: string): string | null {
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    return 'not an absolute URL';
  }
  return /^https?:$/.test(url.protocol) ? null : 'only http and https URLs';
}
