-- Sites (issue 11): a site publishes spaces of its organization. Its structure is either a flat list
-- of site spaces (no sections) or sections (optionally inside section groups), each holding site
-- spaces (the variants of the section). Siblings share one order (`position`, then creation, then id).

CREATE TABLE sites (
  id                         text PRIMARY KEY,
  organization_id            text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  type                       text NOT NULL DEFAULT 'basic',
  title                      text NOT NULL,
  visibility                 text NOT NULL DEFAULT 'public',
  published                  boolean NOT NULL DEFAULT false,
  basename                   text,
  proxy_origin               text,
  default_level              text DEFAULT 'inherit',
  adaptive_content           boolean NOT NULL DEFAULT false,
  agents_context             text NOT NULL DEFAULT 'included',
  -- Full customization object as last PUT (normalized with defaults); null: never set.
  customization              jsonb,
  customization_updated_at   timestamptz,
  adaptive_schema            json, -- json, not jsonb: echoed byte for byte (key order kept)
  adaptive_schema_updated_at timestamptz,
  -- Visitor-token signing key, sealed with the server secret (src/util/seal.ts).
  auth_key_sealed            text,
  auth_fallback_url          text,
  auth_logout_url            text,
  -- Bumped with every change of the site or its structure (render caches key on it).
  version                    bigint NOT NULL DEFAULT 1,
  created_by                 text REFERENCES users (id) ON DELETE SET NULL,
  created_at                 timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at                 timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX sites_org_idx ON sites (organization_id, created_at, id);

CREATE TABLE site_section_groups (
  id              text PRIMARY KEY,
  site_id         text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  parent_group_id text REFERENCES site_section_groups (id) ON DELETE CASCADE,
  title           text NOT NULL,
  icon            text,
  position        float8 NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX site_section_groups_site_idx ON site_section_groups (site_id);

CREATE TABLE site_sections (
  id          text PRIMARY KEY,
  site_id     text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  group_id    text REFERENCES site_section_groups (id) ON DELETE SET NULL,
  title       text NOT NULL,
  description text,
  path        text NOT NULL,
  condition   text,
  icon        text,
  is_default  boolean NOT NULL DEFAULT false,
  position    float8 NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX site_sections_site_idx ON site_sections (site_id);
-- Readers address a section by its path: unique in the site. One default section per site.
CREATE UNIQUE INDEX site_sections_path_idx ON site_sections (site_id, path);
CREATE UNIQUE INDEX site_sections_default_idx ON site_sections (site_id) WHERE is_default;

CREATE TABLE site_spaces (
  id                       text PRIMARY KEY,
  site_id                  text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  -- null: the site has no sections and the site space sits at its root.
  section_id               text REFERENCES site_sections (id) ON DELETE CASCADE,
  space_id                 text NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  path                     text NOT NULL,
  title                    text,
  condition                text,
  hidden                   boolean NOT NULL DEFAULT false,
  page_id                  text,
  is_default               boolean NOT NULL DEFAULT false,
  position                 float8 NOT NULL,
  customization            jsonb,
  customization_updated_at timestamptz,
  created_at               timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX site_spaces_site_idx ON site_spaces (site_id);
CREATE INDEX site_spaces_space_idx ON site_spaces (space_id);
-- Within one section (or the root): unique paths, one default, a space at most once.
CREATE UNIQUE INDEX site_spaces_path_idx ON site_spaces (site_id, coalesce(section_id, ''), path);
CREATE UNIQUE INDEX site_spaces_space_once_idx ON site_spaces (site_id, coalesce(section_id, ''), space_id);
CREATE UNIQUE INDEX site_spaces_default_idx ON site_spaces (site_id, coalesce(section_id, '')) WHERE is_default;

-- Share links: the key is shown only inside urls.published. It is found by its SHA-256 (a 256-bit
-- random key needs no slow hash) and kept sealed so responses can rebuild the URL.
CREATE TABLE site_share_links (
  id         text PRIMARY KEY,
  site_id    text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  name       text NOT NULL DEFAULT '',
  key_hash   text NOT NULL UNIQUE,
  key_sealed text NOT NULL,
  active     boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX site_share_links_site_idx ON site_share_links (site_id, created_at, id);

-- Explicit site grants, like space grants; a member's site role is the highest of the site's
-- default level, their own grant and their teams' grants.
CREATE TABLE site_user_permissions (
  site_id text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role    text NOT NULL,
  PRIMARY KEY (site_id, user_id)
);
CREATE INDEX site_user_permissions_user_idx ON site_user_permissions (user_id);

CREATE TABLE site_team_permissions (
  site_id text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  team_id text NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  role    text NOT NULL,
  PRIMARY KEY (site_id, team_id)
);
CREATE INDEX site_team_permissions_team_idx ON site_team_permissions (team_id);
