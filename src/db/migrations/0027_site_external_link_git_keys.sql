-- Site-level Git Sync applies docs.yaml's external links: each link a docs.yaml
-- made, or that a write-back gave a key, carries the file's `key`, its identity from one sync to
-- the next, as sections, section groups and site spaces do (migration 0020).
ALTER TABLE site_external_links ADD COLUMN git_key text;
CREATE UNIQUE INDEX site_external_links_git_key_idx ON site_external_links (site_id, git_key) WHERE git_key IS NOT NULL;
