-- Full-text search index of each space's current revision (src/search/). Derived data: it can be
-- dropped and rebuilt from the revisions at any time (a space without a state row is indexed at its
-- next search).

-- One row per indexed space: which revision (and root) the index reflects and with which text
-- search configuration; a search compares them with the space to detect a stale index.
CREATE TABLE search_spaces (
  space_id    text PRIMARY KEY REFERENCES spaces (id) ON DELETE CASCADE,
  revision_id text,
  root_hash   text,
  config      text,
  indexed_at  timestamptz
);

-- One row per indexed page (documents without noIndex), with what decides whether it must be
-- parsed again: its body hash, title and description. A changed path or ancestor title only
-- updates this row.
CREATE TABLE search_pages (
  space_id    text NOT NULL REFERENCES search_spaces (space_id) ON DELETE CASCADE,
  page_id     text NOT NULL,
  body_hash   text NOT NULL,
  title       text NOT NULL,
  description text NOT NULL,
  path        text NOT NULL,
  ancestors   jsonb NOT NULL DEFAULT '[]',
  PRIMARY KEY (space_id, page_id)
);

-- One row per section (headings split a page; ord 0 may be the text before the first heading,
-- section_id ''). Every indexed page has at least one row, so an empty page is found by its title.
-- tsv: page title (A), section title (B), page description (C), section body (D), plus CJK bigrams.
CREATE TABLE search_sections (
  space_id   text NOT NULL,
  page_id    text NOT NULL,
  ord        integer NOT NULL,
  section_id text NOT NULL,
  title      text NOT NULL,
  body       text NOT NULL,
  tsv        tsvector NOT NULL,
  PRIMARY KEY (space_id, page_id, ord),
  FOREIGN KEY (space_id, page_id) REFERENCES search_pages (space_id, page_id) ON DELETE CASCADE
);
CREATE INDEX search_sections_tsv_idx ON search_sections USING gin (tsv);
