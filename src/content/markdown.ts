// Pure functions over page Markdown (the canonical page body): parsing, conversion to and from the
// GitBook JSON document model, links, sections, plain text and slugs. See ./markdown/.
export * from './markdown/index.js';
