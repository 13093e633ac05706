// A small robots.txt reader: the rules of the `*` group (Allow/Disallow, `*` wildcards and a `$`
// end anchor), applied as the Robots Exclusion Protocol (RFC 9309) says: the longest matching
// rule wins, Allow wins a tie, no matching rule means allowed.

export interface RobotsRules {
  allows(pathAndQuery: string): boolean;
}

interface Rule {
  allow: boolean;
  pattern: string;
  re: RegExp;
}

export const ALLOW_ALL: RobotsRules = { allows: () => true };

export function parseRobots(text: string): RobotsRules {
  const rules: Rule[] = [];
  // Groups: one or more user-agent lines followed by rules. We keep the rules of groups naming `*`.
  let agents: string[] = [];
  let inRules = false;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.replace(/#.*$/, '').trim();
    const m = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!m) continue;
    const field = m[1].toLowerCase();
    const value = m[2].trim();
    if (field === 'user-agent') {
      if (inRules) {
        agents = [];
        inRules = false;
      }
      agents.push(value.toLowerCase());
    } else if (field === 'allow' || field === 'disallow') {
      inRules = true;
      if (!agents.includes('*')) continue;
      if (!value) continue; // `Disallow:` with no path allows everything
      rules.push({ allow: field === 'allow', pattern: value, re: toRegExp(value) });
    }
  }
  if (!rules.length) return ALLOW_ALL;
  return {
    allows(pathAndQuery: string) {
      let best: Rule | undefined;
      for (const r of rules) {
        if (!r.re.test(pathAndQuery)) continue;
        if (!best || r.pattern.length > best.pattern.length || (r.pattern.length === best.pattern.length && r.allow)) best = r;
      }
      return !best || best.allow;
    },
  };
}

function toRegExp(pattern: string): RegExp {
  const anchored = pattern.endsWith('$');
  const body = (anchored ? pattern.slice(0, -1) : pattern)
    .split('*')
    .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}${anchored ? '$' : ''}`);
}
