-- Collections, spaces and immutable content revisions.

CREATE TABLE collections (
  id              text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  parent_id       text REFERENCES collections (id) ON DELETE CASCADE,
  title           text NOT NULL,
  description     text,
  default_level   text DEFAULT 'inherit' CHECK (default_level IN ('inherit', 'admin', 'create', 'review', 'edit', 'comment', 'read')),
  position        double precision NOT NULL DEFAULT 0,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX collections_org_idx ON collections (organization_id, parent_id, position, created_at);

CREATE TABLE spaces (
  id              text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  parent_id       text REFERENCES collections (id) ON DELETE SET NULL,
  title           text NOT NULL DEFAULT '',
  emoji           text NOT NULL DEFAULT '',
  visibility      text NOT NULL DEFAULT 'private'
                  CHECK (visibility IN ('public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private')),
  edit_mode       text NOT NULL DEFAULT 'live' CHECK (edit_mode IN ('live', 'locked')),
  -- NULL: no access by default (guests' level); 'inherit': from the parent collection or the member's role.
  default_level   text DEFAULT 'inherit' CHECK (default_level IN ('inherit', 'admin', 'create', 'review', 'edit', 'comment', 'read')),
  language        text,
  position        double precision NOT NULL DEFAULT 0,
  revision_id     text,
  share_key       text NOT NULL,
  git_sync        jsonb,
  created_by      text REFERENCES users (id) ON DELETE SET NULL,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  deleted_at      timestamptz,
  deleted_by      text REFERENCES users (id) ON DELETE SET NULL
);
CREATE INDEX spaces_org_idx ON spaces (organization_id, parent_id, position, created_at) WHERE deleted_at IS NULL;
CREATE INDEX spaces_deleted_idx ON spaces (deleted_at) WHERE deleted_at IS NOT NULL;

-- Explicit per-user permission on a space (beyond its default level).
CREATE TABLE space_members (
  space_id text NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  user_id  text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role     text NOT NULL CHECK (role IN ('admin', 'create', 'review', 'edit', 'comment', 'read')),
  PRIMARY KEY (space_id, user_id)
);
CREATE INDEX space_members_user_idx ON space_members (user_id);

-- Content-addressed immutable objects of one space: page nodes, page bodies, files, revision roots.
-- A revision that changes one page writes only that page's objects and its ancestors' nodes;
-- every other object is shared by hash with the previous revision.
CREATE TABLE content_objects (
  space_id text NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  hash     text NOT NULL,
  data     jsonb NOT NULL,
  PRIMARY KEY (space_id, hash)
);

CREATE TABLE revisions (
  id                text PRIMARY KEY,
  space_id          text NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  root_hash         text NOT NULL,
  parents           text[] NOT NULL DEFAULT '{}',
  type              text NOT NULL DEFAULT 'edits' CHECK (type IN ('edits', 'merge', 'rollback', 'update', 'computed')),
  git               jsonb,
  change_request_id text,
  created_by        text REFERENCES users (id) ON DELETE SET NULL,
  created_at        timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX revisions_space_idx ON revisions (space_id, created_at);

-- Stored file bytes, content-addressed (files/sha256/<hex>), and which spaces reference them:
-- a duplicated space shares bytes; purge deletes bytes no space references any more.
CREATE TABLE blobs (
  key          text PRIMARY KEY,
  size         bigint NOT NULL,
  sha256       text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE space_blobs (
  space_id text NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  blob_key text NOT NULL REFERENCES blobs (key),
  PRIMARY KEY (space_id, blob_key)
);
CREATE INDEX space_blobs_key_idx ON space_blobs (blob_key);
