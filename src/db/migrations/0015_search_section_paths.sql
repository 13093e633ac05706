-- The page's path on each of its section rows (always equal to search_pages.path: written and
-- moved together by src/search/indexer.ts), so that ranking a search orders the matching pages
-- (ties by path) without looking up the page row of every match.
ALTER TABLE search_sections ADD COLUMN path text;
UPDATE search_sections s SET path = p.path FROM search_pages p WHERE p.space_id = s.space_id AND p.page_id = s.page_id;
ALTER TABLE search_sections ALTER COLUMN path SET NOT NULL;
