-- Credentials in an OpenAPI source URL (user info, credential query parameters) are no longer
-- stored in clear: `source_url` keeps the URL as shown (credentials removed) and
-- `source_url_sealed` the whole URL sealed with AES-256-GCM under a key derived from SECRET_KEY
-- (src/net/url-secrets.ts), opened only by the worker that fetches it. Rows written in clear
-- before this migration are sealed at start-up, once the key is known (src/db/sealed-secrets.ts).
ALTER TABLE openapi_specs ADD COLUMN source_url_sealed text;
ALTER TABLE openapi_specs ADD CONSTRAINT openapi_specs_sealed_has_url CHECK (source_url_sealed IS NULL OR source_url IS NOT NULL);
