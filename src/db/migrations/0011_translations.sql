-- Translations (seed 001): a localized copy of a space, produced by the `translation.run` job.
CREATE TABLE translations (
  id                  text PRIMARY KEY,
  organization_id     text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  source_space_id     text NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  source_language     text NOT NULL,
  language            text NOT NULL,
  instructions        jsonb NOT NULL,
  -- Hash of the instructions' text: part of every page hash and memory key, so a change retranslates all.
  instructions_hash   text NOT NULL,
  status              text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'completed')),
  result_space_id     text REFERENCES spaces (id) ON DELETE SET NULL,
  result_revision_id  text,
  runs                integer NOT NULL DEFAULT 0,
  total_words         bigint NOT NULL DEFAULT 0,
  total_duration      integer NOT NULL DEFAULT 0,
  latest_run_duration integer NOT NULL DEFAULT 0,
  latest_pages        integer NOT NULL DEFAULT 0,
  latest_words        integer NOT NULL DEFAULT 0,
  last_error          text,
  -- What the last completed run mirrored (source root hash + instructions, provider, languages):
  -- a run finding the same and the result unchanged since has nothing to do.
  last_source         text,
  created_by          text REFERENCES users (id) ON DELETE SET NULL,
  created_at          timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at          timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (source_space_id, language)
);
CREATE INDEX translations_org_idx ON translations (organization_id, created_at, id);

-- What the result holds for each source page: the hash of the source it was translated from.
CREATE TABLE translation_pages (
  translation_id text NOT NULL REFERENCES translations (id) ON DELETE CASCADE,
  page_id        text NOT NULL,
  source_hash    text NOT NULL,
  words          integer NOT NULL DEFAULT 0,
  translated_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (translation_id, page_id)
);

-- Segment-level translation memory of one translation: an edited page retranslates only its changed segments.
CREATE TABLE translation_memory (
  translation_id  text NOT NULL REFERENCES translations (id) ON DELETE CASCADE,
  key             text NOT NULL, -- sha256(provider, languages, instructions hash, segment)
  translated      text NOT NULL,
  PRIMARY KEY (translation_id, key)
);

-- The organization's translation glossary (0.202.0 `translations-glossary`): one term per language.
CREATE TABLE translation_glossary (
  id              text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  translations    jsonb NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX translation_glossary_org_idx ON translation_glossary (organization_id, created_at, id);
