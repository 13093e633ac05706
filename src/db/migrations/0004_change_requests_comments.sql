-- Change requests (their content is a chain of revisions of the same space) and comments.

ALTER TABLE spaces ADD COLUMN change_request_seq integer NOT NULL DEFAULT 0;

CREATE TABLE change_requests (
  id                       text PRIMARY KEY,
  space_id                 text NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  -- Allocated from spaces.change_request_seq under the space row lock: no gap, no duplicate.
  number                   integer NOT NULL,
  subject                  text NOT NULL DEFAULT '',
  status                   text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'open', 'archived', 'merged')),
  created_by               text REFERENCES users (id) ON DELETE SET NULL,
  created_at               timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at               timestamptz NOT NULL DEFAULT clock_timestamp(),
  revision_initial         text NOT NULL,
  revision                 text NOT NULL,
  revision_merged_ancestor text,
  revision_merged          text,
  merged_by                text REFERENCES users (id) ON DELETE SET NULL,
  merged_at                timestamptz,
  UNIQUE (space_id, number)
);
CREATE INDEX change_requests_space_idx ON change_requests (space_id, status, number);

CREATE TABLE comments (
  id                text PRIMARY KEY,
  space_id          text NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  change_request_id text REFERENCES change_requests (id) ON DELETE CASCADE,
  page_id           text,
  node_id           text,
  table_cell        jsonb,
  body              text NOT NULL,
  status            text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
  posted_by         text REFERENCES users (id) ON DELETE SET NULL,
  posted_at         timestamptz NOT NULL DEFAULT clock_timestamp(),
  edited_at         timestamptz,
  resolved_at       timestamptz,
  resolved_by       text REFERENCES users (id) ON DELETE SET NULL
);
CREATE INDEX comments_base_idx ON comments (space_id, change_request_id, posted_at, id);

CREATE TABLE comment_replies (
  id          text PRIMARY KEY,
  comment_id  text NOT NULL REFERENCES comments (id) ON DELETE CASCADE,
  body        text NOT NULL,
  status      text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
  posted_by   text REFERENCES users (id) ON DELETE SET NULL,
  posted_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  edited_at   timestamptz,
  resolved_at timestamptz,
  resolved_by text REFERENCES users (id) ON DELETE SET NULL
);
CREATE INDEX comment_replies_comment_idx ON comment_replies (comment_id, posted_at, id);

-- One row per (comment or reply, emoji, user): a user reacts once per emoji.
CREATE TABLE comment_reactions (
  target_id  text NOT NULL,
  emoji      text NOT NULL,
  user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  reacted_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (target_id, emoji, user_id)
);
