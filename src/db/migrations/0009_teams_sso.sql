-- Teams that grant access, and SAML single sign-on.

-- Grants of a team on a space or a collection (users' space grants are in space_members).
CREATE TABLE space_team_permissions (
  space_id text NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  team_id  text NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  role     text NOT NULL CHECK (role IN ('admin', 'create', 'review', 'edit', 'comment', 'read')),
  PRIMARY KEY (space_id, team_id)
);
CREATE INDEX space_team_permissions_team_idx ON space_team_permissions (team_id);

CREATE TABLE collection_team_permissions (
  collection_id text NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
  team_id       text NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  role          text NOT NULL CHECK (role IN ('admin', 'create', 'review', 'edit', 'comment', 'read')),
  PRIMARY KEY (collection_id, team_id)
);
CREATE INDEX collection_team_permissions_team_idx ON collection_team_permissions (team_id);

-- Explicit per-user grant on a collection; it reaches every space and collection inside.
CREATE TABLE collection_members (
  collection_id text NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
  user_id       text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role          text NOT NULL CHECK (role IN ('admin', 'create', 'review', 'edit', 'comment', 'read')),
  PRIMARY KEY (collection_id, user_id)
);
CREATE INDEX collection_members_user_idx ON collection_members (user_id);

CREATE TABLE saml_providers (
  id              text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  label           text NOT NULL,
  entity_id       text NOT NULL,
  certificate     text NOT NULL,
  sso_url         text NOT NULL,
  default_team_id text REFERENCES teams (id) ON DELETE SET NULL,
  default_role    text CHECK (default_role IN ('admin', 'create', 'review', 'edit', 'comment', 'read')), -- NULL: guest
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('active', 'pending')),
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  last_login_at   timestamptz
);
CREATE INDEX saml_providers_org_idx ON saml_providers (organization_id, created_at, id);

-- AuthnRequest ids we issued (node-saml's cache provider) and assertion ids already consumed:
-- in PostgreSQL so that every API instance sees them. Expired rows are ignored and swept.
CREATE TABLE saml_requests (
  id          text PRIMARY KEY,
  provider_id text NOT NULL REFERENCES saml_providers (id) ON DELETE CASCADE,
  value       text NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX saml_requests_expiry_idx ON saml_requests (expires_at);

CREATE TABLE saml_assertions_seen (
  provider_id  text NOT NULL REFERENCES saml_providers (id) ON DELETE CASCADE,
  assertion_id text NOT NULL,
  expires_at   timestamptz NOT NULL,
  PRIMARY KEY (provider_id, assertion_id)
);
CREATE INDEX saml_assertions_seen_expiry_idx ON saml_assertions_seen (expires_at);

-- Browser sessions opened by an SSO login (cookie dp_session); only the SHA-256 of the id is kept.
CREATE TABLE sessions (
  id_hash         text PRIMARY KEY,
  user_id         text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  provider_id     text REFERENCES saml_providers (id) ON DELETE SET NULL,
  token_issued    boolean NOT NULL DEFAULT false,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  expires_at      timestamptz NOT NULL
);
CREATE INDEX sessions_user_idx ON sessions (user_id);

-- Tokens minted by an SSO login remember the organization they were minted for, so an
-- organization that enforces SSO can tell them from other tokens.
ALTER TABLE api_tokens ADD COLUMN sso_organization_id text REFERENCES organizations (id) ON DELETE SET NULL;
