export { parseMarkdown } from './parse.js';
export { markdownToDocument } from './to-document.js';
export { documentToMarkdown, defaultFormatRef, type DocumentToMarkdownOptions } from './from-document.js';
export {
  extractLinks,
  headings,
  pageLinks,
  plainText,
  splitSections,
  type HeadingInfo,
  type MarkdownLink,
  type PageLink,
  type Section,
} from './text.js';
export { slugify } from './slug.js';
export type * from './types.js';
