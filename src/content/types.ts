// The stored shapes of content objects. Every object is immutable and addressed by the hash of its
// canonical JSON within its space (see objects.ts). A revision points at one RootNode.

export type Hash = string;

export type PageType = 'document' | 'group' | 'link' | 'computed';

interface ContentRef {
  kind: string;
  [key: string]: unknown;
}

export interface PageNode {
  kind: 'page';
  id: string;
  type: PageType;
  title: string;
  /** Sidebar title (the description's `linkTitle`), when it differs from the title. */
  linkTitle?: string;
  slug: string;
  emoji?: string;
  icon?: string;
  description?: string;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  layout?: Record<string, unknown>;
  cover?: Record<string, unknown>;
  variables?: Record<string, string>;
  /** Computed pages: the source (e.g. an OpenAPI spec) and seed; evaluated only on request. */
  computed?: { type: string; dependencies?: Record<string, unknown>; props?: Record<string, unknown> };
  computedSeed?: string;
  /** Link pages. */
  target?: ContentRef;
  href?: string;
  git?: { oid: string; path: string };
  createdAt: string;
  updatedAt: string;
  /** Hash of the BodyNode; absent for an empty page. */
  body?: Hash;
  children: Hash[];
}

export interface BodyNode {
  kind: 'body';
  markdown: string;
}

export interface FileNode {
  kind: 'file';
  id: string;
  name: string;
  contentType: string;
  size: number;
  /** Key of the shared, content-addressed bytes in the BlobStore. */
  blobKey: string;
  sha256: string;
  dimensions?: { width: number; height: number };
  git?: { oid: string; path: string };
  createdAt: string;
}

export interface ReusableContent {
  id: string;
  title: string;
  git?: { oid: string; path: string };
  body?: Hash;
}

export interface RootNode {
  kind: 'root';
  pages: Hash[];
  files: Hash[];
  reusableContents: ReusableContent[];
  variables: Record<string, string>;
  /**
   * Redirects of a git-synced space (`.gitbook.yaml` `redirects`): old path → file path, both
   * relative to the docs root. Absent when there are none (older roots keep their hash).
   */
  redirects?: Record<string, string>;
}

export type ContentObject = PageNode | BodyNode | FileNode | RootNode;
