-- Conditional content ({% if %} blocks, issue 29) is never indexed: the readers a condition hides it
-- from must not find it by search. Indexes built before held such pages' text, tags included. Their
-- rows go, and their spaces' index is marked stale, so the next search (or search.index job)
-- parses those pages again under the new rule; every other page keeps its rows.
CREATE TEMPORARY TABLE conditional_pages ON COMMIT DROP AS
  SELECT DISTINCT space_id, page_id FROM search_sections WHERE body ~ '\{%-?\s*if\s';

DELETE FROM search_sections s USING conditional_pages c WHERE s.space_id = c.space_id AND s.page_id = c.page_id;
DELETE FROM search_pages p USING conditional_pages c WHERE p.space_id = c.space_id AND p.page_id = c.page_id;

UPDATE search_spaces SET revision_id = NULL, root_hash = NULL
 WHERE space_id IN (SELECT DISTINCT space_id FROM conditional_pages);
