-- PDF exports. One row per distinct export: (space, revision, change request or main, page
-- selection). Revisions are immutable, so an export is rendered once and then served to every
-- request for the same selection; a failed render is re-enqueued (a new operation) by the next
-- request. The PDF bytes live in the BlobStore under `blob_key`, written before the row says
-- `ready`, so a reader never sees a half-written PDF.
CREATE TABLE pdf_renders (
  id                text PRIMARY KEY,
  space_id          text NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  revision_id       text NOT NULL,
  -- NULL: the space's main content; else the change request whose content (and cover) is exported.
  change_request_id text REFERENCES change_requests (id) ON DELETE CASCADE,
  -- 'all', 'page:<pageId>' (that page only) or 'section:<pageId>' (that page and its descendants).
  scope             text NOT NULL,
  organization_id   text NOT NULL,
  -- The operation currently (or last) responsible for this render.
  operation_id      text NOT NULL,
  status            text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ready', 'failed')),
  file_name         text NOT NULL,
  blob_key          text,
  size              bigint,
  page_count        integer,
  error             text,
  created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
  CHECK ((status = 'ready') = (blob_key IS NOT NULL))
);
CREATE UNIQUE INDEX pdf_renders_key_idx ON pdf_renders (space_id, revision_id, coalesce(change_request_id, ''), scope);

-- A render row going away (space or change request purged) hands its PDF bytes to the purge job.
CREATE FUNCTION pdf_renders_garbage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO blob_garbage (blob_key) VALUES (OLD.blob_key) ON CONFLICT DO NOTHING;
  RETURN OLD;
END $$;
CREATE TRIGGER pdf_renders_garbage AFTER DELETE ON pdf_renders
  FOR EACH ROW WHEN (OLD.blob_key IS NOT NULL) EXECUTE FUNCTION pdf_renders_garbage();
