-- Reviews of change requests (issue 28): requested reviewers, submitted reviews, and a space's
-- merge rules (the description's MergeRulesSpaceConfiguration; no row: inherit).

-- A space's own merge rules, as PATCH /spaces/{spaceId} gives them (`{"type": "none"}` or
-- `{"type": "rules", "rules": [...]}`). No row: `{"type": "inherit"}`.
CREATE TABLE space_merge_rules (
  space_id    text PRIMARY KEY REFERENCES spaces (id) ON DELETE CASCADE,
  rules       jsonb NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- One row per user asked to review a change request (asked again: the row is renewed).
CREATE TABLE change_request_reviewers (
  change_request_id text NOT NULL REFERENCES change_requests (id) ON DELETE CASCADE,
  user_id           text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  requested_by      text REFERENCES users (id) ON DELETE SET NULL,
  -- The change request's revision when the request was made.
  revision          text NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (change_request_id, user_id)
);
CREATE INDEX change_request_reviewers_user_idx ON change_request_reviewers (user_id);

-- Reviews are append-only: a reviewer's later review supersedes (outdates) their earlier ones, and
-- a review given on an older revision of the change request than its current one is outdated.
CREATE TABLE change_request_reviews (
  id                text PRIMARY KEY,
  change_request_id text NOT NULL REFERENCES change_requests (id) ON DELETE CASCADE,
  reviewer_id       text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  requested_by      text REFERENCES users (id) ON DELETE SET NULL,
  revision          text NOT NULL,
  status            text NOT NULL CHECK (status IN ('approved', 'changes-requested')),
  comment_id        text REFERENCES comments (id) ON DELETE SET NULL,
  created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at        timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX change_request_reviews_cr_idx ON change_request_reviews (change_request_id, created_at, id);
