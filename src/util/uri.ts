/** `decodeURIComponent`, or the text as it is when it is not valid percent-encoding (never throws). */
export function decodeOrKeep(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
