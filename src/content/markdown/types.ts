// The subset of the public GitBook document model (components.schemas.JSONDocument and friends in
// @gitbook/api/spec/openapi.json) that the Markdown conversion produces and reads back. Declared here
// rather than imported from @gitbook/api, which is a dev dependency only.

export type ContentRef =
  | { kind: 'url'; url: string }
  | { kind: 'file'; file: string; space?: string }
  | { kind: 'page'; page: string; space?: string }
  | { kind: 'anchor'; anchor: string; page?: string; space?: string }
  | { kind: 'user'; user: string }
  | { kind: 'collection'; collection: string }
  | { kind: 'space'; space: string }
  | { kind: 'reusable-content'; reusableContent: string; space?: string }
  | { kind: 'tag'; tag: string; space?: string }
  | { kind: 'openapi'; spec: string };

/** What an image may point at (ContentRefURL | ContentRefFile). */
export type ImageRef = Extract<ContentRef, { kind: 'url' } | { kind: 'file' }>;

/** Marks produced from Markdown; documents read back may carry others (keyboard, color…), which are ignored. */
export type MarkType = 'bold' | 'italic' | 'strikethrough' | 'code';

export interface DocumentMark {
  object: 'mark';
  type: MarkType | 'keyboard' | 'color' | 'superscript' | 'subscript';
  data?: unknown;
}

export interface DocumentTextLeaf {
  object: 'leaf';
  text: string;
  marks: DocumentMark[];
}

export interface DocumentText {
  object: 'text';
  key?: string;
  leaves: DocumentTextLeaf[];
}

export interface DocumentInlineImage {
  object: 'inline';
  type: 'inline-image';
  key?: string;
  data: { ref: ImageRef; alt?: string; caption?: string; size?: 'original' | 'line' };
  isVoid: true;
}

export interface DocumentInlineLink {
  object: 'inline';
  type: 'link';
  key?: string;
  data: { ref: ContentRef };
  nodes: Array<DocumentText | DocumentInlineImage>;
  isVoid?: false;
}

export interface DocumentInlineMath {
  object: 'inline';
  type: 'inline-math';
  key?: string;
  data: { formula: string };
  isVoid: true;
}

export type DocumentInline = DocumentInlineLink | DocumentInlineImage | DocumentInlineMath;
export type DocumentInlineContent = DocumentText | DocumentInline;

export interface DocumentBlockParagraph {
  object: 'block';
  type: 'paragraph';
  key?: string;
  data?: { align?: 'start' | 'center' | 'end' };
  nodes: DocumentInlineContent[];
  isVoid?: false;
}

export interface DocumentBlockHeading {
  object: 'block';
  type: 'heading-1' | 'heading-2' | 'heading-3';
  key?: string;
  /** `id` only when the anchor matches the schema's `^[-a-z0-9.+_]+$` (not for CJK anchors). */
  data: { id?: string };
  /** Always the computed anchor (github-slugger, unique per document). */
  meta?: { id: string };
  nodes: DocumentInlineContent[];
  isVoid?: false;
}

export interface DocumentBlockCodeLine {
  object: 'block';
  type: 'code-line';
  key?: string;
  data: { highlighted?: boolean };
  nodes: DocumentText[];
  isVoid?: false;
}

export interface DocumentBlockCode {
  object: 'block';
  type: 'code';
  key?: string;
  data: {
    syntax?: string;
    title?: string;
    overflow?: 'scroll' | 'wrap';
    lineNumbers?: boolean;
    fullWidth?: boolean;
    expandable?: boolean;
  };
  nodes: DocumentBlockCodeLine[];
  isVoid?: false;
}

export interface DocumentBlockListItem {
  object: 'block';
  type: 'list-item';
  key?: string;
  data?: { checked?: boolean };
  nodes: DocumentBlock[];
  isVoid?: false;
}

export interface DocumentBlockList {
  object: 'block';
  type: 'list-ordered' | 'list-unordered' | 'list-tasks';
  key?: string;
  data: { start?: number };
  nodes: DocumentBlockListItem[];
  isVoid?: false;
}

export interface DocumentBlockQuote {
  object: 'block';
  type: 'blockquote';
  key?: string;
  data?: Record<string, never>;
  nodes: DocumentBlock[];
  isVoid?: false;
}

export type HintStyle = 'info' | 'warning' | 'danger' | 'success';

export interface DocumentBlockHint {
  object: 'block';
  type: 'hint';
  key?: string;
  data: { style: HintStyle };
  nodes: DocumentBlock[];
  isVoid?: false;
}

export interface DocumentBlockDivider {
  object: 'block';
  type: 'divider';
  key?: string;
  data: Record<string, never>;
  isVoid: true;
}

export interface DocumentBlockImage {
  object: 'block';
  type: 'image';
  key?: string;
  data: { ref: ImageRef; alt?: string; width?: number | string; height?: number | string };
  fragments: DocumentFragment[];
  isVoid: true;
}

export interface DocumentBlockImages {
  object: 'block';
  type: 'images';
  key?: string;
  data: { align?: 'center' | 'left' | 'right'; fullWidth?: boolean };
  nodes: DocumentBlockImage[];
  isVoid: false;
}

export interface DocumentBlockFile {
  object: 'block';
  type: 'file';
  key?: string;
  data: { ref: Extract<ContentRef, { kind: 'file' }> };
  isVoid: true;
}

export interface DocumentTableDefinitionText {
  id: string;
  title: string;
  type: 'text';
  textAlignment: 'left' | 'center' | 'right';
}

/** Other column types may appear in documents read back; their values are printed as plain text. */
export type DocumentTableDefinition = DocumentTableDefinitionText | { id: string; title: string; type: string; [k: string]: unknown };

export interface DocumentTableRecord {
  orderIndex: string;
  values: Record<string, unknown>;
}

export interface DocumentBlockTable {
  object: 'block';
  type: 'table';
  key?: string;
  data: {
    view: { type: 'grid'; columns: string[]; hideHeader: boolean } | { type: 'cards'; columns: string[]; [k: string]: unknown };
    records: Record<string, DocumentTableRecord>;
    definition: Record<string, DocumentTableDefinition>;
  };
  fragments: DocumentFragment[];
  isVoid: true;
}

export interface DocumentFragment {
  object: 'fragment';
  key?: string;
  fragment?: string;
  type?: string;
  nodes: DocumentBlock[];
}

/**
 * GitBook's other blocks (tabs, tabs-item, stepper, stepper-step, columns, column, updates, update,
 * expandable, embed, content-ref, math, reusable-content, swagger, openapi-operation): their shapes
 * follow the description's DocumentBlock* schemas; the converter builds them field by field.
 */
export interface DocumentBlockGitBook {
  object: 'block';
  type:
    | 'tabs'
    | 'tabs-item'
    | 'stepper'
    | 'stepper-step'
    | 'columns'
    | 'column'
    | 'updates'
    | 'update'
    | 'expandable'
    | 'embed'
    | 'content-ref'
    | 'math'
    | 'reusable-content'
    | 'swagger'
    | 'openapi-operation'
    | 'if'
    | 'prompt';
  key?: string;
  data: Record<string, unknown>;
  /** `condition`: the expression of an `if` that could not stand where this block is (to-document.ts). */
  meta?: Record<string, unknown>;
  nodes?: DocumentBlock[];
  fragments?: DocumentFragment[];
  isVoid: boolean;
}

export type DocumentBlock =
  | DocumentBlockGitBook
  | DocumentBlockParagraph
  | DocumentBlockHeading
  | DocumentBlockCode
  | DocumentBlockCodeLine
  | DocumentBlockList
  | DocumentBlockListItem
  | DocumentBlockQuote
  | DocumentBlockHint
  | DocumentBlockDivider
  | DocumentBlockImages
  | DocumentBlockImage
  | DocumentBlockFile
  | DocumentBlockTable;

export interface JSONDocument {
  object: 'document';
  data: Record<string, unknown>;
  nodes: DocumentBlock[];
}

export type ResolveRef = (url: string) => ContentRef;
export type FormatRef = (ref: ContentRef) => string;
