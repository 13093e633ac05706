// GitBook's `{% code %}` frames of a Markdown page, found by lines as GitBook writes them: what the
// code-option fidelity tests compare before and after a trip through the JSON document.

const TAG = /^\s*\{%\s*(end)?([a-z][a-z-]*)\b.*%\}\s*$/;
const FENCE = /^\s*(`{3,}|~{3,})/;

export interface CodeFrame {
  /** The frame as written: `{% code … %}` line to `{% endcode %}` line. */
  text: string;
  /** The block tags it stands in (`tabs`, `tab`, `hint`, …) and `details`, outermost first. */
  within: string[];
}

/** Every `{% code %}` frame of a page, with the containers it stands in (fenced code is skipped). */
export function codeFrames(md: string): CodeFrame[] {
  const lines = md.split('\n');
  const out: CodeFrame[] = [];
  const stack: string[] = [];
  let fence: string | null = null;
  let start = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const f = FENCE.exec(line);
    if (fence) {
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length && line.trim() === f[1]) fence = null;
      continue;
    }
    if (f) {
      fence = f[1];
      continue;
    }
    if (/^\s*<details[\s>]/i.test(line)) stack.push('details');
    if (/<\/details>\s*$/i.test(line) && stack.at(-1) === 'details') stack.pop();
    const t = TAG.exec(line);
    if (!t) continue;
    if (t[2] === 'code') {
      if (!t[1]) start = i;
      else if (start >= 0) {
        out.push({ text: lines.slice(start, i + 1).join('\n'), within: [...stack] });
        start = -1;
      }
    } else if (['hint', 'tabs', 'tab', 'stepper', 'step', 'columns', 'column', 'updates', 'update', 'if', 'prompt'].includes(t[2])) {
      if (!t[1]) stack.push(t[2]);
      else if (stack.at(-1) === t[2]) stack.pop();
    }
  }
  return out;
}

/**
 * A frame in GitBook's own shape: `{% code a="x" b="y" %}`, the fence right below, `{% endcode %}`
 * right after it. Hand-written frames (blank lines inside, two spaces before an option) keep their
 * options and code but come back in this shape.
 */
export function canonicalFrame(frame: string): string {
  const lines = frame.split('\n');
  const attrs = [...lines[0].matchAll(/([A-Za-z][\w-]*)="([^"]*)"/g)].map((m) => ` ${m[1]}="${m[2]}"`).join('');
  const body = lines
    .slice(1, -1)
    .join('\n')
    .replace(/^\n+|\n+$/g, '');
  return `{% code${attrs} %}\n${body}\n{% endcode %}`;
}
