-- Where a published site lives besides PUBLIC_URL/site/{id} (issue 12): its own custom hostname
-- (`Site.hostname`, stored lowercase), or its organization's host (custom hostname, or the
-- organization's `hostname` under SITES_DOMAIN) followed by the site's basename. A request's Host
-- header is looked up by these indexes; one host names at most one site or organization.
ALTER TABLE sites ADD COLUMN hostname text;
CREATE UNIQUE INDEX sites_hostname_key ON sites (lower(hostname)) WHERE hostname IS NOT NULL;
CREATE UNIQUE INDEX organizations_custom_hostname_key ON organizations (lower(custom_hostname)) WHERE custom_hostname IS NOT NULL;
CREATE INDEX sites_org_basename ON sites (organization_id, basename) WHERE basename IS NOT NULL;
