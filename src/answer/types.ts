// The answer engine's inputs and outputs. Passages come from search results the asker may already
// read (the caller filters before retrieval); a back-end only quotes or summarizes them and cites
// them by their index, so it can neither reach nor reveal anything else.

/** One search result offered to a back-end: a page (or one of its sections) the asker may read. */
export interface Passage {
  /** The page's title. */
  title: string;
  /** Where a reader opens it (the site's page URL, or the app URL for members). */
  url: string;
  /** Where the page lives on the site ("Guides / v2"), when known. */
  section: string | null;
  /** The matched text (a section body, a snippet or a description). */
  text: string;
  spaceId: string;
  pageId: string;
  revisionId: string;
  /** Ids of the page sections the text came from (anchors), possibly none. */
  sectionIds: string[];
}

export interface Answer {
  /** The answer in Markdown, citations as links to the passages' URLs. */
  markdown: string;
  /** Indexes (into the passages given) of the passages the answer used. */
  used: number[];
}

export interface AnswerBackend {
  readonly name: string;
  /**
   * Answer `question` from `passages` (ranked, best first). `onText` receives the answer as it
   * grows (the whole text so far), for streaming; the promise gives the final answer.
   */
  answer(question: string, passages: Passage[], o: { signal?: AbortSignal; onText?: (sofar: string) => void }): Promise<Answer>;
}

/** Bounds every back-end applies. */
export const MAX_QUESTION_CHARS = 512;
export const MAX_PASSAGES = 8;
export const MAX_PASSAGE_CHARS = 1500;
