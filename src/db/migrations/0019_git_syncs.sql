-- Git Sync (issue 27): a repository branch kept in sync with a space (or, later, a whole site).
-- One row per synced target; the runs are `git.sync` operations (src/services/git-sync/runs.ts).
CREATE TABLE git_syncs (
  id                          text PRIMARY KEY,
  organization_id             text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  -- What the row syncs: a space, or a site (docs.yaml; its spaces then have rows of their own).
  kind                        text NOT NULL DEFAULT 'space' CHECK (kind IN ('space', 'site')),
  space_id                    text UNIQUE REFERENCES spaces (id) ON DELETE CASCADE,
  site_id                     text UNIQUE REFERENCES sites (id) ON DELETE CASCADE,
  -- Remote URL without credentials; credentials sealed (src/git/credentials.ts).
  url                         text NOT NULL,
  credentials                 text,
  -- Always `refs/heads/<branch>`.
  ref                         text NOT NULL,
  project_directory           text NOT NULL DEFAULT '',
  direction                   text NOT NULL DEFAULT 'bidirectional' CHECK (direction IN ('bidirectional', 'import', 'export')),
  -- 0: webhooks only.
  poll_interval_seconds       integer NOT NULL DEFAULT 60 CHECK (poll_interval_seconds = 0 OR poll_interval_seconds >= 5),
  status                      text NOT NULL DEFAULT 'idle' CHECK (status IN ('idle', 'importing', 'exporting', 'conflict', 'error')),
  last_imported_commit        text,
  last_exported_commit        text,
  last_synced_at              timestamptz,
  last_error                  text,
  -- Public random id of the webhook URL, and its secret (sealed, shown again to admins).
  hook_id                     text NOT NULL UNIQUE,
  webhook_secret              text NOT NULL,
  -- The commit and the space revision both sides agreed on at the last sync: the remote moved when
  -- its head differs from the first, the space when its revision differs from the second (so an
  -- import's own revision never triggers an export, nor an export's commit an import).
  synced_commit               text,
  synced_revision_id          text,
  -- Next poll (poll_interval_seconds > 0, or a failing sync's back-off); a run wanted at a time
  -- (the debounce of an export after a content change).
  next_poll_at                timestamptz,
  run_due_at                  timestamptz,
  failures                    integer NOT NULL DEFAULT 0,
  -- The newest head a push announced; the run queued for this sync (at most one, coalescing).
  wanted_head                 text,
  export_pending              boolean NOT NULL DEFAULT false,
  queued_operation_id         text,
  -- Both sides moved: the change request holding the repository's side, and that commit.
  conflict_change_request_id  text,
  conflict_commit             text,
  created_at                  timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at                  timestamptz NOT NULL DEFAULT clock_timestamp(),
  CHECK ((kind = 'space' AND space_id IS NOT NULL AND site_id IS NULL) OR (kind = 'site' AND site_id IS NOT NULL AND space_id IS NULL))
);
CREATE INDEX git_syncs_org_idx ON git_syncs (organization_id);
CREATE INDEX git_syncs_poll_idx ON git_syncs (next_poll_at) WHERE next_poll_at IS NOT NULL;
CREATE INDEX git_syncs_due_idx ON git_syncs (run_due_at) WHERE run_due_at IS NOT NULL;
