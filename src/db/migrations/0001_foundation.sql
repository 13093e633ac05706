-- Foundation: identities, organizations, members, teams, tokens, durable operations, OpenAPI specs.

CREATE TABLE settings (
  key   text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE users (
  id           text PRIMARY KEY,
  display_name text NOT NULL,
  email        text NOT NULL,
  photo_url    text,
  -- Operators reach the job dashboard; they need no role in any organization for that.
  is_operator  boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE organizations (
  id              text PRIMARY KEY,
  title           text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  email_domains   text[] NOT NULL DEFAULT '{}',
  hostname        text UNIQUE,
  type            text NOT NULL DEFAULT 'business',
  use_case        text,
  community_type  text,
  default_role    text,
  default_content jsonb,
  logo_url        text,
  sso             boolean NOT NULL DEFAULT false,
  ai              boolean NOT NULL DEFAULT false,
  invite_links    boolean NOT NULL DEFAULT false,
  plan            text NOT NULL DEFAULT 'free',
  custom_hostname text
);
CREATE INDEX organizations_email_domains_idx ON organizations USING gin (email_domains);

CREATE TABLE members (
  organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id         text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role            text CHECK (role IN ('admin', 'create', 'review', 'edit', 'comment', 'read')), -- NULL: guest
  disabled        boolean NOT NULL DEFAULT false,
  sso             boolean NOT NULL DEFAULT false,
  joined_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  last_seen_at    timestamptz,
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX members_org_joined_idx ON members (organization_id, joined_at, user_id);
CREATE INDEX members_org_seen_idx ON members (organization_id, last_seen_at, user_id) WHERE last_seen_at IS NOT NULL;
CREATE INDEX members_user_idx ON members (user_id);

CREATE TABLE api_tokens (
  id           text PRIMARY KEY,
  user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash   text NOT NULL UNIQUE,
  label        text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  expires_at   timestamptz
);

CREATE TABLE link_invites (
  id              text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  role            text,
  created_by      text REFERENCES users (id) ON DELETE SET NULL,
  created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE teams (
  id              text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  title           text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX teams_org_idx ON teams (organization_id, created_at, id);

CREATE TABLE team_members (
  team_id  text NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  user_id  text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role     text NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'member')),
  added_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_members_user_idx ON team_members (user_id);

-- One durable row per long-running operation. It is written in the same transaction as the change
-- that asked for it; the BullMQ job id equals the row id, so re-enqueueing is idempotent and a
-- flushed Redis is rebuilt from here by the reconciler.
CREATE TABLE operations (
  id              text PRIMARY KEY,
  organization_id text REFERENCES organizations (id) ON DELETE CASCADE,
  kind            text NOT NULL,
  queue           text NOT NULL,
  status          text NOT NULL DEFAULT 'queued'
                  CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'skipped')),
  target_type     text,
  target_id       text,
  payload         jsonb NOT NULL DEFAULT '{}',
  progress        real NOT NULL DEFAULT 0,
  result          jsonb,
  error           text,
  attempts        integer NOT NULL DEFAULT 0,
  created_by      text REFERENCES users (id) ON DELETE SET NULL,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  started_at      timestamptz,
  finished_at     timestamptz
);
CREATE INDEX operations_open_idx ON operations (updated_at) WHERE status IN ('queued', 'running');
CREATE INDEX operations_target_idx ON operations (target_type, target_id, created_at DESC);
CREATE INDEX operations_kind_status_idx ON operations (kind, status);

CREATE TABLE openapi_specs (
  id                       text PRIMARY KEY,
  organization_id          text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  slug                     text NOT NULL,
  source_url               text,
  source_text              text,
  processing_state         text NOT NULL DEFAULT 'pending' CHECK (processing_state IN ('pending', 'progress', 'complete')),
  processing_operation_id  text,
  visibility               text NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'public')),
  last_version             text,
  last_processed_at        timestamptz,
  last_process_error_code  text CHECK (last_process_error_code IN ('FETCH_TIMEOUT', 'FETCH_ERROR', 'PARSE_ERROR')),
  last_process_error       text,
  created_at               timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at               timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (organization_id, slug),
  CHECK ((source_url IS NULL) <> (source_text IS NULL))
);
CREATE INDEX openapi_specs_org_idx ON openapi_specs (organization_id, created_at, id);

CREATE TABLE openapi_spec_versions (
  id           text PRIMARY KEY,
  spec_id      text NOT NULL REFERENCES openapi_specs (id) ON DELETE CASCADE,
  blob_key     text NOT NULL,
  sha256       text NOT NULL,
  size         integer NOT NULL,
  openapi      text NOT NULL,
  title        text,
  api_version  text,
  created_at   timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX openapi_spec_versions_spec_idx ON openapi_spec_versions (spec_id, created_at);

-- Blobs whose rows are gone and whose bytes are to be deleted from storage (by the purge job).
CREATE TABLE blob_garbage (
  blob_key   text PRIMARY KEY,
  queued_at  timestamptz NOT NULL DEFAULT now()
);
