-- The link index, built ahead by the `links.index` job (src/services/link-indexing.ts) rather than by
-- the first reader, and readable by every API process.
--
-- link_extracts: the links each page body holds as written (src/content/links.ts extractPageLinks),
-- keyed like content_objects by (space, body hash): a body is parsed once, whatever the number of
-- revisions and processes sharing it, and a new revision only adds the bodies that changed.
-- `links` is a JSON array of [url, relation] pairs in document order.
CREATE TABLE link_extracts (
  space_id  text NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  body_hash text NOT NULL,
  links     jsonb NOT NULL,
  PRIMARY KEY (space_id, body_hash)
);

-- The revision roots whose every body has its row above: a read of such a revision resolves the
-- stored links (in memory, linear) and never parses a page.
CREATE TABLE link_indexed_roots (
  space_id   text NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  root_hash  text NOT NULL,
  bodies     integer NOT NULL,
  links      integer NOT NULL,
  indexed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (space_id, root_hash)
);
