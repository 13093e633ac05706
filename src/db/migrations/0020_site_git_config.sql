-- Whole sites from docs.yaml (issue 27, item 4). Each section, section group and site space a
-- docs.yaml made carries the file's `key` (its identity from one sync to the next: a title, path or
-- directory may change, the key does not) and its per-language titles (and, for sections,
-- descriptions). The site keeps the config it last applied, for what the site itself does not model
-- (external links, drafts, unknown keys, each space's directory and language) when its docs.yaml is
-- written back.
ALTER TABLE site_sections ADD COLUMN git_key text, ADD COLUMN localized_title jsonb, ADD COLUMN localized_description jsonb;
ALTER TABLE site_section_groups ADD COLUMN git_key text, ADD COLUMN localized_title jsonb;
ALTER TABLE site_spaces ADD COLUMN git_key text, ADD COLUMN localized_title jsonb;
CREATE UNIQUE INDEX site_sections_git_key_idx ON site_sections (site_id, git_key) WHERE git_key IS NOT NULL;
CREATE UNIQUE INDEX site_section_groups_git_key_idx ON site_section_groups (site_id, git_key) WHERE git_key IS NOT NULL;
CREATE UNIQUE INDEX site_spaces_git_key_idx ON site_spaces (site_id, git_key) WHERE git_key IS NOT NULL;

CREATE TABLE site_git_configs (
  site_id    text PRIMARY KEY REFERENCES sites (id) ON DELETE CASCADE,
  -- json, not jsonb: unknown keys keep their order for write-back.
  config     json NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
