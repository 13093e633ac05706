-- A change request's description and external links (the description's ChangeRequest `description`,
-- a JSONDocument, and `links`, ChangeRequestLinks), as PATCH /spaces/{spaceId}/change-requests/{id}
-- and requestReviewers give them. Both nullable or defaulted: rows made before keep working, and a
-- process of the previous version, which neither reads nor writes them, too.
-- description: the JSON document as given (checked on write), NULL when none.
-- links: [{"id", "ref": {"kind": "url", "url"}, "title"?}], at most 10 (checked on write).
ALTER TABLE change_requests
  ADD COLUMN description jsonb,
  ADD COLUMN links jsonb NOT NULL DEFAULT '[]'::jsonb;
