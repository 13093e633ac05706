// Writing a `docs.yaml` back (see docs-yaml.ts for the format): GitBook's key order and quoting (2-space
// indent, sequences indented under their key, single quotes where a plain scalar would read as something
// else), so a file in that shape reads and writes back byte for byte. Engine only.
import { Document } from 'yaml';
import { type Extra, type DocsYamlSpace, type DocsYamlNode, type DocsYamlConfig } from './docs-yaml-types.js';

type Plain = Record<string, unknown>;

function withExtra(o: Plain, extra: Extra | undefined): Plain {
  return extra ? { ...o, ...Object.fromEntries(Object.entries(extra).filter(([k]) => !(k in o))) } : o;
}

function spaceOut(s: DocsYamlSpace): Plain {
  return withExtra(
    {
      type: 'space',
      key: s.key,
      title: s.title,
      localizedTitle: s.localizedTitle,
      path: s.path,
      default: s.default,
      hidden: s.hidden,
      draft: s.draft,
      condition: s.condition,
      content: withExtra({ directory: s.content.directory, language: s.content.language }, s.content.extra),
    },
    s.extra,
  );
}

function nodeOut(n: DocsYamlNode): Plain {
  switch (n.type) {
    case 'space':
      return spaceOut(n);
    case 'section':
      return withExtra(
        {
          type: 'section',
          key: n.key,
          title: n.title,
          localizedTitle: n.localizedTitle,
          path: n.path,
          description: n.description,
          localizedDescription: n.localizedDescription,
          icon: n.icon,
          default: n.default,
          draft: n.draft,
          condition: n.condition,
          children: n.children.map(spaceOut),
        },
        n.extra,
      );
    case 'section-group':
      return withExtra(
        {
          type: 'section-group',
          key: n.key,
          title: n.title,
          localizedTitle: n.localizedTitle,
          icon: n.icon,
          draft: n.draft,
          children: n.children.map(nodeOut),
        },
        n.extra,
      );
    case 'external-link':
      return withExtra(
        {
          type: 'external-link',
          key: n.key,
          title: n.title,
          localizedTitle: n.localizedTitle,
          url: n.url,
          description: n.description,
          localizedDescription: n.localizedDescription,
          icon: n.icon,
          draft: n.draft,
          condition: n.condition,
        },
        n.extra,
      );
  }
}

/** Removes undefined fields deeply (the YAML writer would print them as null). */
function clean(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(clean);
  if (v && typeof v === 'object') {
    const out: Plain = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = clean(x);
    return out;
  }
  return v;
}

/**
 * docs.yaml text for a config: GitBook's key order, 2-space indent with sequences indented under
 * their key, no line folding, single quotes only where a plain scalar would read as something else
 * (under YAML 1.2 or 1.1: `'yes'`, `'123'`). Written, it reads back as the same config.
 */
export function writeDocsYaml(config: DocsYamlConfig): string {
  const top = withExtra(
    {
      $schema: config.$schema,
      version: config.version,
      site: withExtra({ title: config.site.title, structure: config.site.structure.map(nodeOut) }, config.site.extra),
    },
    config.extra,
  );
  const doc = new Document(clean(top), { schema: 'yaml-1.1' });
  return doc.toString({ lineWidth: 0, singleQuote: true, indentSeq: true });
}
