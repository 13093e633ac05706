// Limits of user content (page bodies, comment bodies, JSON documents), and the checks that enforce
// them without parsing: what the Markdown parser and the converters would need to do with an input
// is estimated in one iterative, linear pass before any of them sees it.
//
// Why: the parser (micromark) and the converters walk nested structure recursively and some of
// their steps are quadratic in nesting or in markers, so a 50 KB page of `>` took seconds of the API's
// event loop and then overflowed the stack. Every API write is checked here (400 naming the limit).
// Content stored without passing through those writes (git imports, older revisions) may exceed
// them: readers then get it as plain text (src/render/plain.ts), never a parse of it.
//
// The Markdown scan (limits/markdown-scan.ts) follows CommonMark's container rules closely enough to
// be an upper bound of the real nesting: block quotes and list items are tracked on a stack line by
// line (continuation by `>` or by indentation, lazy paragraph lines, fences and HTML blocks at any
// depth); inside a paragraph, link brackets are counted and emphasis runs measured; the parser's
// quadratic work is estimated as it goes. It never recurses and never backtracks. JSON documents
// and parsed trees are checked iteratively (limits/document-check.ts).

export { LIMITS, type LimitName, type LimitViolation } from './limits/values.js';
export { scanMarkdown } from './limits/markdown-scan.js';
export { checkDocument, checkTree } from './limits/document-check.js';
