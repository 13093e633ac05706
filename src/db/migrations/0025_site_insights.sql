-- Site insights without a tracker (issue 29, item 3).
--
-- Raw events as the reader site (or an API caller) sends them, with the visitor and session kept
-- only as keyed hashes whose key changes every day (src/sites/insights-privacy.ts): a visitor is
-- counted once per day and cannot be followed from one day to the next, nor traced back to an
-- address. The `insights.aggregate` job folds events into hourly rollups and removes raw events
-- past INSIGHTS_RETENTION_DAYS; queries read rollups plus the raw events not yet folded.
CREATE TABLE site_insight_events (
  id              bigserial PRIMARY KEY,
  site_id         text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  occurred_at     timestamptz NOT NULL,
  type            text NOT NULL,
  visitor_hash    text NOT NULL,
  session_hash    text NOT NULL,
  -- Every dimension a query can group or filter by (see src/sites/insights-query.ts).
  dims            jsonb NOT NULL DEFAULT '{}',
  claims          jsonb NOT NULL DEFAULT '{}',
  received_at     timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX site_insight_events_site_idx ON site_insight_events (site_id, occurred_at);
CREATE INDEX site_insight_events_time_idx ON site_insight_events (occurred_at);

-- Hourly rollups: one row per site, hour, event type and set of dimensions, with the number of
-- events and the distinct visitor and session hashes of that hour (unique counts over any range
-- stay exact; the hashes of different days never match).
CREATE TABLE site_insight_rollups (
  site_id   text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  hour      timestamptz NOT NULL,
  type      text NOT NULL,
  dims      jsonb NOT NULL,
  claims    jsonb NOT NULL,
  events    integer NOT NULL,
  visitors  text[] NOT NULL,
  sessions  text[] NOT NULL
);
CREATE UNIQUE INDEX site_insight_rollups_key ON site_insight_rollups (site_id, hour, type, md5(dims::text), md5(claims::text));
CREATE INDEX site_insight_rollups_site_idx ON site_insight_rollups (site_id, hour);

-- Events with an id up to `last_event_id` are in the rollups (one row, made by the first fold: a
-- migration seeds no rows, so a restore loads into empty tables; no row reads as 0).
CREATE TABLE site_insight_rollup_state (
  singleton      boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  last_event_id  bigint NOT NULL DEFAULT 0
);
