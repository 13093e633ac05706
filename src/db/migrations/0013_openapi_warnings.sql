-- A description that parses and resolves but breaks strict validation (responses without a
-- description, arrays without items, a `$ref` where the schema allows none) is processed; what
-- validation found is kept as warnings: on the version it produced, and on the spec for its last
-- processing (shown in `lastProcessedErrors`). At most 100 are kept; the count is the total.
ALTER TABLE openapi_spec_versions ADD COLUMN warnings jsonb NOT NULL DEFAULT '[]';
ALTER TABLE openapi_spec_versions ADD COLUMN warning_count integer NOT NULL DEFAULT 0;
ALTER TABLE openapi_specs ADD COLUMN last_process_warnings jsonb NOT NULL DEFAULT '[]';
ALTER TABLE openapi_specs ADD COLUMN last_process_warning_count integer NOT NULL DEFAULT 0;
-- The groups of operations (tags) of a version, computed by the worker that processed it: a space
-- created from the spec gets one computed page per group without the API reading the description.
ALTER TABLE openapi_spec_versions ADD COLUMN reference_groups jsonb NOT NULL DEFAULT '[]';
