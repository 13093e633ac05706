-- Invites (issue 28): invite links carry a secret token stored as its SHA-256 only; e-mail invites
-- are single-use and expire. The audit log is append-only.

ALTER TABLE link_invites
  ADD COLUMN token_hash    text,
  ADD COLUMN space_id      text REFERENCES spaces (id) ON DELETE CASCADE,
  ADD COLUMN collection_id text REFERENCES collections (id) ON DELETE CASCADE,
  ADD COLUMN expires_at    timestamptz;
CREATE UNIQUE INDEX link_invites_token_idx ON link_invites (token_hash) WHERE token_hash IS NOT NULL;
CREATE INDEX link_invites_org_idx ON link_invites (organization_id, created_at, id);

CREATE TABLE email_invites (
  id              text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  email           text NOT NULL,
  user_id         text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role            text,
  sso             boolean NOT NULL DEFAULT false,
  teams           text[] NOT NULL DEFAULT '{}',
  spaces          jsonb NOT NULL DEFAULT '[]',
  token_hash      text NOT NULL UNIQUE,
  created_by      text REFERENCES users (id) ON DELETE SET NULL,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  expires_at      timestamptz NOT NULL,
  accepted_at     timestamptz
);
CREATE INDEX email_invites_org_email_idx ON email_invites (organization_id, lower(email));

CREATE TABLE audit_events (
  id              uuid PRIMARY KEY,
  organization_id text NOT NULL,
  occurred_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
  action          text NOT NULL,
  actor_type      text NOT NULL,
  actor_id        text NOT NULL,
  actor_label     text,
  source          text NOT NULL,
  target_type     text NOT NULL,
  target_id       text NOT NULL,
  target_label    text,
  client_address  text,
  execution_id    text,
  correlation_id  text,
  payload         jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_events_org_idx ON audit_events (organization_id, occurred_at DESC, id DESC);
CREATE INDEX audit_events_action_idx ON audit_events (organization_id, action, occurred_at DESC);
CREATE INDEX audit_events_actor_idx ON audit_events (organization_id, actor_id, occurred_at DESC);
CREATE INDEX audit_events_target_idx ON audit_events (organization_id, target_id, occurred_at DESC);
CREATE INDEX audit_events_time_idx ON audit_events (occurred_at);

-- Append-only: no UPDATE ever; DELETE only from the retention purge, which sets
-- docsplatform.audit_purge for its own transaction (src/db/repos/audit.ts purgeAuditEvents).
CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('docsplatform.audit_purge', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_events is append-only' USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();

-- Sign-in links sent by e-mail: single-use, short-lived, stored as the SHA-256 of their token.
CREATE TABLE sign_in_links (
  token_hash text PRIMARY KEY,
  user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
CREATE INDEX sign_in_links_user_idx ON sign_in_links (user_id, created_at);
