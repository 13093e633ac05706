// A SAML 2.0 service provider for one identity provider, on @node-saml/node-saml (>= 5.1, which
// checks through xml-crypto's signedReferences what was actually signed). Knows nothing of HTTP,
// the database or organizations: the caller passes the provider's settings and a cache provider
// (the store of AuthnRequest ids we issued, shared by every API instance).
import { X509Certificate } from 'node:crypto';
import { SAML, ValidateInResponseTo, type CacheProvider, type Profile } from '@node-saml/node-saml';

export type { CacheProvider } from '@node-saml/node-saml';

/** How long an AuthnRequest we issued stays answerable. */
export const REQUEST_TTL_MS = 10 * 60_000;
/** Longest an assertion is accepted after it was issued, whatever its NotOnOrAfter says. */
export const MAX_ASSERTION_AGE_MS = 5 * 60_000;
const CLOCK_SKEW_MS = 60_000;
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

export interface ServiceProviderSettings {
  /** Our entity id (the metadata URL) and our assertion consumer URL. */
  entityId: string;
  acsUrl: string;
  /** The identity provider: its entity id, its single sign-on URL and its signing certificate (PEM). */
  idpEntityId: string;
  idpSsoUrl: string;
  idpCertificate: string;
  cache: CacheProvider;
}

/** A certificate as PEM or bare base64 DER; throws a readable reason when it is not X.509. */
export function parseCertificate(text: string): X509Certificate {
  const trimmed = text.trim();
  const pem = trimmed.includes('-----BEGIN')
    ? trimmed
    : `-----BEGIN CERTIFICATE-----\n${trimmed.replace(/\s+/g, '')}\n-----END CERTIFICATE-----`;
  try {
    return new X509Certificate(pem);
  } catch {
    throw new Error('not a PEM-encoded X.509 certificate');
  }
}

function sp(s: ServiceProviderSettings): SAML {
  return new SAML({
    issuer: s.entityId,
    audience: s.entityId,
    callbackUrl: s.acsUrl,
    entryPoint: s.idpSsoUrl,
    idpCert: parseCertificate(s.idpCertificate).toString(),
    identifierFormat: EMAIL_FORMAT,
    wantAssertionsSigned: true,
    // Many identity providers sign the assertion only; a signed response is accepted too.
    wantAuthnResponseSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: REQUEST_TTL_MS,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    maxAssertionAgeMs: MAX_ASSERTION_AGE_MS,
    disableRequestedAuthnContext: true,
    cacheProvider: s.cache,
  });
}

/** Our metadata document for this identity provider. */
export function metadata(s: ServiceProviderSettings): string {
  return sp(s).generateServiceProviderMetadata(null, null);
}

/** The identity provider's URL (HTTP-Redirect binding) carrying a new AuthnRequest; its id is saved in the cache. */
export async function authorizeUrl(s: ServiceProviderSettings, relayState: string): Promise<string> {
  return sp(s).getAuthorizeUrlAsync(relayState, undefined, {});
}

export interface SamlLogin {
  email: string;
  displayName?: string;
  /** The assertion's id and when it stops being valid: the replay cache keeps it until then. */
  assertionId: string;
  expiresAt: Date;
}

const first = (v: unknown): string | undefined => {
  const x = Array.isArray(v) ? v[0] : v;
  return typeof x === 'string' && x.trim() ? x.trim() : undefined;
};

function emailOf(profile: Profile): string | undefined {
  if (profile.nameIDFormat === EMAIL_FORMAT && profile.nameID?.includes('@')) return profile.nameID;
  for (const key of [
    'email',
    'mail',
    'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
    'urn:oid:0.9.2342.19200300.100.1.3',
  ]) {
    const v = first(profile[key]);
    if (v?.includes('@')) return v;
  }
  return profile.nameID?.includes('@') ? profile.nameID : undefined;
}

function displayNameOf(profile: Profile): string | undefined {
  const direct =
    first(profile.displayName) ?? first(profile.name) ?? first(profile['http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name']);
  if (direct) return direct;
  const parts = [first(profile.givenName), first(profile.surname) ?? first(profile.sn)].filter(Boolean);
  return parts.length ? parts.join(' ') : undefined;
}

/**
 * Validate a `SAMLResponse` (HTTP-POST binding): signed by the provider's key, for our audience and
 * ACS, within its time window, in answer to a request in the cache, issued by the provider's
 * entity id. Throws (with the reason, for the log only) otherwise.
 */
export async function consume(s: ServiceProviderSettings, samlResponse: string): Promise<SamlLogin> {
  const { profile } = await sp(s).validatePostResponseAsync({ SAMLResponse: samlResponse });
  if (!profile) throw new Error('not a login response');
  if (profile.issuer !== s.idpEntityId) throw new Error(`unexpected issuer "${profile.issuer}"`);
  const email = emailOf(profile);
  if (!email || email.length > 320) throw new Error('the assertion names no e-mail address');
  const assertion = profile.getAssertion?.() as
    { Assertion?: { $?: { ID?: string }; Conditions?: { $?: { NotOnOrAfter?: string } }[] } } | undefined;
  const assertionId = assertion?.Assertion?.$?.ID;
  if (!assertionId) throw new Error('the assertion has no ID');
  const notOnOrAfter = Date.parse(assertion?.Assertion?.Conditions?.[0]?.$?.NotOnOrAfter ?? '');
  // Keep the id at least as long as the assertion could be accepted.
  const expiresAt = new Date(Math.max(Number.isFinite(notOnOrAfter) ? notOnOrAfter : 0, Date.now() + MAX_ASSERTION_AGE_MS) + CLOCK_SKEW_MS);
  return { email: email.toLowerCase(), displayName: displayNameOf(profile)?.slice(0, 256), assertionId, expiresAt };
}
