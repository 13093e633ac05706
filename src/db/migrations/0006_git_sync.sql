-- Git sync state per space: what was last applied (timestamp ordering) and what the remote had.
CREATE TABLE git_sync_state (
  space_id        text PRIMARY KEY REFERENCES spaces (id) ON DELETE CASCADE,
  url             text,
  ref             text,
  -- Commit the space's content last matched (after an import or an export): exports build on it.
  last_commit     text,
  -- Timestamp of the last applied operation; an older one is skipped.
  last_timestamp  timestamptz,
  -- SUMMARY.md and structure of the last sync, to keep an unchanged file byte-identical on export.
  summary         jsonb,
  provider        text,
  tree_url        text,
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
