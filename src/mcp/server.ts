// The MCP server of one published site, for one request (stateless Streamable HTTP: a new server
// and transport per request, so nothing about a reader outlives the request). Two tools:
// `searchDocumentation` ({query} -> ranked pages: title, URL, section, snippet, as text and as
// structured content) and `getPage` ({url} -> the page's Markdown with its title and URL). The
// engine knows nothing of sites or access: it gets a search and a page reader already bound to
// what the asking reader may see.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { z } from 'zod';
import { LRUCache } from 'lru-cache';

export const MAX_QUERY_CHARS = 200;
export const MAX_URL_CHARS = 2000;
/** Longest Markdown getPage returns (characters); longer pages are cut and say so. */
export const MAX_PAGE_CHARS = 100_000;
export const MAX_RESULTS = 10;

export interface DocsResult {
  title: string;
  url: string;
  section: string | null;
  snippet: string;
}

export interface DocsSource {
  /** The site's title (the server's name shown to agents). */
  title: string;
  search(query: string): Promise<DocsResult[]>;
  page(url: string): Promise<{ title: string; url: string; markdown: string } | null>;
}

/** One JSON Schema validator for every server (building one costs milliseconds; the SDK makes one per server otherwise). */
let validator: AjvJsonSchemaValidator | undefined;

const result = z.object({ title: z.string(), url: z.string(), section: z.string().nullable(), snippet: z.string() });

/** The source a pooled server answers for: set for each request it serves. */
interface SourceRef {
  source: DocsSource;
}

export function docsServer(source: DocsSource, version: string): McpServer {
  return buildServer({ source }, source.title, version);
}

function buildServer(ref: SourceRef, title: string, version: string): McpServer {
  const server = new McpServer(
    { name: title.slice(0, 200) || 'Documentation', version },
    {
      instructions: `Search and read the documentation "${title.slice(0, 200)}": searchDocumentation, then getPage on a result's URL.`,
      jsonSchemaValidator: (validator ??= new AjvJsonSchemaValidator()),
    },
  );
  server.registerTool(
    'searchDocumentation',
    {
      title: 'Search the documentation',
      description: 'Search this documentation site. Returns the best matching pages: title, URL, section and a snippet.',
      inputSchema: { query: z.string().min(1).max(MAX_QUERY_CHARS).describe('What to look for, in a few words') },
      outputSchema: { results: z.array(result) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query }) => {
      const results = (await ref.source.search(query)).slice(0, MAX_RESULTS).map((r) => ({
        title: r.title,
        url: r.url,
        section: r.section,
        snippet: r.snippet.replace(/\s+/g, ' ').trim().slice(0, 300),
      }));
      const text = results.length
        ? results
            .map(
              (r, i) =>
                `${i + 1}. ${r.title}${r.section ? ` (${r.section})` : ''}\n   URL: ${r.url}${r.snippet ? `\n   ${r.snippet}` : ''}`,
            )
            .join('\n\n')
        : `No page matches "${query}".`;
      return { content: [{ type: 'text', text }], structuredContent: { results } };
    },
  );
  server.registerTool(
    'getPage',
    {
      title: 'Read a page',
      description: 'Read one page of this documentation as Markdown, by its URL or its path on the site (as searchDocumentation gives).',
      inputSchema: { url: z.string().min(1).max(MAX_URL_CHARS).describe("The page's URL or path on this site") },
      outputSchema: { title: z.string(), url: z.string(), markdown: z.string(), truncated: z.boolean() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ url }) => {
      const page = await ref.source.page(url);
      if (!page) return { isError: true, content: [{ type: 'text', text: `No page of this site at "${url.slice(0, 200)}".` }] };
      const truncated = page.markdown.length > MAX_PAGE_CHARS;
      const markdown = truncated ? `${page.markdown.slice(0, MAX_PAGE_CHARS)}\n\n[… cut at ${MAX_PAGE_CHARS} characters]` : page.markdown;
      return {
        content: [{ type: 'text', text: `URL: ${page.url}\n\n${markdown}` }],
        structuredContent: { title: page.title, url: page.url, markdown, truncated },
      };
    },
  );
  return server;
}

/**
 * Idle servers by site title: building one (tools, schemas) costs milliseconds, so a server that
 * answered a request is kept for the next one of the same site. A server serves one request at a
 * time (its transport is made for that request and closed after it); nothing of a request stays
 * (the source is replaced before the server goes back).
 */
const idle = new LRUCache<string, { server: McpServer; ref: SourceRef }[]>({ max: 200 });
const IDLE_PER_SITE = 8;
const NO_SOURCE: DocsSource = { title: '', search: async () => [], page: async () => null };

/**
 * Answer one HTTP request of the Streamable HTTP transport (stateless, JSON responses) with a server
 * for `source`; `body` is the parsed JSON-RPC message (read and bounded by the caller).
 */
export async function handleMcpRequest(source: DocsSource, version: string, request: Request, body: unknown): Promise<Response> {
  const key = `${version}\n${source.title}`;
  const pooled = idle.get(key)?.pop() ?? { ref: { source }, server: undefined as unknown as McpServer };
  pooled.ref.source = source;
  pooled.server ??= buildServer(pooled.ref, source.title, version);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  let reusable = false;
  try {
    await pooled.server.connect(transport);
    const res = await transport.handleRequest(request, { parsedBody: body });
    // The JSON body is complete once handleRequest resolved: read it before closing the transport.
    const text = res.body ? await res.text() : '';
    reusable = true;
    return new Response(text || null, { status: res.status, headers: res.headers });
  } finally {
    await pooled.server.close().catch(() => (reusable = false));
    pooled.ref.source = NO_SOURCE;
    if (reusable) {
      const list = idle.get(key) ?? [];
      if (list.length < IDLE_PER_SITE) list.push(pooled);
      idle.set(key, list);
    }
  }
}
