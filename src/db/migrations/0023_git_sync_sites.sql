-- Site-level Git Sync (issue 27, item 4): a `git_syncs` row of kind 'site' keeps a site's structure
-- in sync with the docs.yaml of a repository branch; its spaces are synced by space rows of their own.
ALTER TABLE git_syncs
  -- Who set the sync up: a site run creates the spaces (and translations) a new docs.yaml entry needs as that user.
  ADD COLUMN created_by text REFERENCES users (id) ON DELETE SET NULL,
  -- A space sync a site sync created for one of its directories: stopped with it (the space stays).
  ADD COLUMN site_sync_id text REFERENCES git_syncs (id) ON DELETE CASCADE,
  -- Site rows: the site version and the docs.yaml (sha-256 of the text the site's structure gives)
  -- both sides agreed on at the last run; a structure that gives another text is written back.
  ADD COLUMN synced_site_version bigint,
  ADD COLUMN synced_config_hash text;
CREATE INDEX git_syncs_site_sync_idx ON git_syncs (site_sync_id) WHERE site_sync_id IS NOT NULL;
CREATE INDEX git_syncs_remote_idx ON git_syncs (organization_id, url, ref, project_directory) WHERE kind = 'space';
