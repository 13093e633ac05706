/**
 * What makes a site branded and protected: its customization (PUT is a full replacement, fields
 * left out take their defaults), per-site-space overrides (PATCH merges, null clears a setting,
 * DELETE drops them all), and the publishing auth of visitor-auth sites: the HS256 signing key of
 * visitor tokens (256 random bits, sealed at rest with the server secret, shown to site admins
 * only, replaced by `regenerate`) and the fallback login / logout URLs.
 */
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Principal } from '../../auth/principal.js';
import * as sites from '../../db/repos/sites.js';
import * as structure from '../../db/repos/site-structure.js';
import { requireSite } from '../../policies/sites.js';
import { notFound } from '../../core/errors.js';
import { openText, sealText } from '../../util/seal.js';
import {
  applyOverridePatch,
  effectiveCustomization,
  normalizeCustomization,
  withOverrides,
  type CustomizationInput,
} from '../../sites/customization.js';
import { presentCustomization } from './sites.js';

const AUTH_PURPOSE = 'site-visitor-auth-key';

export async function getCustomization(app: AppContext, p: Principal, orgId: string, siteId: string) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'read');
  return presentCustomization(effectiveCustomization(site.customization), site.customization_updated_at);
}

export async function putCustomization(app: AppContext, p: Principal, orgId: string, siteId: string, body: CustomizationInput) {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  await sites.setSiteCustomization(app.db, siteId, normalizeCustomization(body));
  return getCustomization(app, p, orgId, siteId);
}

async function siteSpaceOf(app: AppContext, siteId: string, siteSpaceId: string) {
  const ss = (await structure.listAllSiteSpaces(app.db, siteId)).find((x) => x.id === siteSpaceId);
  if (!ss) throw notFound(`Site space "${siteSpaceId}" not found in this site`);
  return ss;
}

export async function getSiteSpaceCustomization(app: AppContext, p: Principal, orgId: string, siteId: string, siteSpaceId: string) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'read');
  const ss = await siteSpaceOf(app, siteId, siteSpaceId);
  return presentCustomization(
    withOverrides(effectiveCustomization(site.customization), ss.customization),
    ss.customization_updated_at ?? site.customization_updated_at,
  );
}

export async function patchSiteSpaceCustomization(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  siteSpaceId: string,
  body: Record<string, unknown>,
) {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  const ss = await siteSpaceOf(app, siteId, siteSpaceId);
  await structure.setSiteSpaceCustomization(app.db, siteSpaceId, applyOverridePatch(ss.customization, body));
  await sites.bumpSiteVersion(app.db, siteId);
  return getSiteSpaceCustomization(app, p, orgId, siteId, siteSpaceId);
}

/** 204 whether or not there were overrides (or the site space existed). */
export async function deleteSiteSpaceCustomization(app: AppContext, p: Principal, orgId: string, siteId: string, siteSpaceId: string) {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  const ss = (await structure.listAllSiteSpaces(app.db, siteId)).find((x) => x.id === siteSpaceId);
  if (!ss?.customization) return;
  await structure.setSiteSpaceCustomization(app.db, siteSpaceId, null);
  await sites.bumpSiteVersion(app.db, siteId);
}

const newSigningKey = () => randomBytes(32).toString('base64url');

async function presentAuth(app: AppContext, siteId: string) {
  let site = (await sites.getSite(app.db, siteId))!;
  if (!site.auth_key_sealed) {
    // Made on first read, so every site has a key once someone looks for it.
    await sites.setSiteAuth(app.db, siteId, { keySealed: sealText(newSigningKey(), app.secret, AUTH_PURPOSE) });
    site = (await sites.getSite(app.db, siteId))!;
  }
  return {
    object: 'publishing-auth',
    backend: 'custom',
    privateKey: openText(site.auth_key_sealed!, app.secret, AUTH_PURPOSE),
    ...(site.auth_fallback_url ? { fallbackURL: site.auth_fallback_url } : {}),
    ...(site.auth_logout_url ? { logoutURL: site.auth_logout_url } : {}),
  };
}

/** The visitor-token signing key of a site (for the reader-facing site; null before one exists). */
export async function visitorSigningKey(app: AppContext, site: sites.SiteRow): Promise<string | null> {
  return site.auth_key_sealed ? openText(site.auth_key_sealed, app.secret, AUTH_PURPOSE) : null;
}

export async function getPublishingAuth(app: AppContext, p: Principal, orgId: string, siteId: string) {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  return presentAuth(app, siteId);
}

export async function updatePublishingAuth(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  body: { fallbackURL?: string | null; logoutURL?: string | null },
) {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  await sites.setSiteAuth(app.db, siteId, { fallbackUrl: body.fallbackURL, logoutUrl: body.logoutURL });
  return presentAuth(app, siteId);
}

/** A new signing key: tokens signed with the old one stop working at once. */
export async function regeneratePublishingAuth(app: AppContext, p: Principal, orgId: string, siteId: string) {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  await sites.setSiteAuth(app.db, siteId, { keySealed: sealText(newSigningKey(), app.secret, AUTH_PURPOSE) });
  return presentAuth(app, siteId);
}
