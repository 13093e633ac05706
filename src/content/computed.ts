import type { AppContext } from '../context.js';
import type { PageNode } from './types.js';
import { latestVersionBlobKey } from '../db/repos/openapi.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Evaluate a computed page into markdown. Supported source: an OpenAPI spec of the organization
 * (`computed.type` "openapi", `dependencies.spec.ref` = `{kind: "openapi", spec: <slug or id>}`),
 * rendered from its latest processed version as a reference of its operations.
 */
export async function evaluateComputedPage(app: AppContext, orgId: string, node: PageNode): Promise<string> {
  const c = node.computed;
  const ref = (c?.dependencies as { spec?: { ref?: { kind?: string; spec?: string } } } | undefined)?.spec?.ref;
  if (!c || !/openapi/.test(c.type) || ref?.kind !== 'openapi' || !ref.spec) {
    return `> This page is computed from an unsupported source (${c?.type ?? 'none'}).\n`;
  }
  const blobKey = await latestVersionBlobKey(app.db, orgId, ref.spec);
  const bytes = blobKey ? await app.blobs.get(blobKey) : null;
  if (!bytes) return `> The OpenAPI spec "${ref.spec}" has no processed version yet.\n`;
  return openapiToMarkdown(JSON.parse(bytes.toString('utf8')));
}

function openapiToMarkdown(doc: any): string {
  const lines: string[] = [];
  const info = doc.info ?? {};
  if (info.description) lines.push(String(info.description).trim(), '');
  lines.push(`Version: ${info.version ?? 'unknown'}`, '');
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item?.[method];
      if (!op) continue;
      lines.push(`## ${method.toUpperCase()} ${path}`, '');
      if (op.summary) lines.push(String(op.summary), '');
      if (op.description) lines.push(String(op.description), '');
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].filter((p: any) => p?.name);
      if (params.length) {
        lines.push('| Parameter | In | Required |', '| --- | --- | --- |');
        for (const p of params) lines.push(`| ${p.name} | ${p.in ?? ''} | ${p.required ? 'yes' : 'no'} |`);
        lines.push('');
      }
      const codes = Object.keys(op.responses ?? {});
      if (codes.length) lines.push(`Responses: ${codes.join(', ')}`, '');
    }
  }
  return lines.join('\n');
}
