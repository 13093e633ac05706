-- Section rows no longer check their page row on insert. That foreign key cost one lookup per
-- inserted section, and its plan is fixed by the statistics of the moment: indexing a large space
-- into a search_pages table that was analyzed while small scanned the whole table for every
-- section (a 10,000-page space: 15 s instead of 2 s, measured). The indexer writes a page's row and
-- its sections in one transaction and deletes them together (src/db/repos/search.ts); sections
-- still go with their space.
ALTER TABLE search_sections DROP CONSTRAINT search_sections_space_id_page_id_fkey;
ALTER TABLE search_sections ADD FOREIGN KEY (space_id) REFERENCES search_spaces (space_id) ON DELETE CASCADE;
