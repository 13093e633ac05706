-- Site redirects, site external links, custom fonts and signed storage uploads (issue 29, items 1 and 2).

-- A redirect of a site: a source path (exact, or a prefix ending in `*`) leading to a section, a
-- site space, a page of a site space, or an external URL. Draft and live redirects of one source
-- live side by side (bulkUpsertSiteRedirects' `intent`); readers follow live ones only.
CREATE TABLE site_redirects (
  id               text PRIMARY KEY,
  site_id          text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  source           text NOT NULL,
  draft            boolean NOT NULL DEFAULT false,
  capture_wildcard boolean NOT NULL DEFAULT false,
  permanent        boolean NOT NULL DEFAULT false,
  destination      jsonb NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at       timestamptz
);
CREATE UNIQUE INDEX site_redirects_source_idx ON site_redirects (site_id, draft, source);

-- A link of a site's header (and its mobile menu) to another site.
CREATE TABLE site_external_links (
  id                    text PRIMARY KEY,
  site_id               text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  section_group_id      text REFERENCES site_section_groups (id) ON DELETE SET NULL,
  title                 text NOT NULL,
  localized_title       jsonb,
  description           text,
  localized_description jsonb,
  icon                  text,
  url                   text NOT NULL,
  draft                 boolean NOT NULL DEFAULT false,
  condition             text,
  position              float8 NOT NULL,
  created_at            timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX site_external_links_site_idx ON site_external_links (site_id);

-- Bytes announced by generateStorageUploadURL and received through its signed URL. `sha256` and
-- `uploaded_at` are set once the bytes arrived and were checked; the blob lives at `blob_key`.
CREATE TABLE storage_uploads (
  id           text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  kind         text NOT NULL,
  name         text NOT NULL,
  content_type text NOT NULL,
  size         bigint NOT NULL,
  key          text NOT NULL UNIQUE,
  blob_key     text,
  sha256       text,
  format       text,
  created_by   text,
  expires_at   timestamptz NOT NULL,
  uploaded_at  timestamptz,
  created_at   timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX storage_uploads_org_idx ON storage_uploads (organization_id);

-- A font family of an organization; its faces (one per weight) name uploaded files.
CREATE TABLE custom_fonts (
  id              text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  font_family     text NOT NULL,
  -- [{ "weight": 400, "key": "<storage key>", "blobKey": "...", "format": "woff2", "contentType": "font/woff2" }]
  faces           jsonb NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX custom_fonts_org_idx ON custom_fonts (organization_id);
