// A real SAML identity provider for tests, on loopback: an RSA key pair (node:crypto), a
// self-signed certificate (openssl req -x509), assertions signed with xml-crypto, and a node:http
// server answering the HTTP-Redirect binding with an auto-POST form to the ACS (HTTP-POST binding).
// Knobs make it misbehave the ways attackers do: unsigned, other key, wrong audience, expired,
// replayed, unknown request id, signature wrapping.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';
import { serve } from './http.js';

export interface KeyPair {
  key: string;
  cert: string;
}

/** An RSA key and a self-signed certificate for it. */
export function makeKeyPair(cn = 'test-idp'): KeyPair {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const dir = mkdtempSync(path.join(tmpdir(), 'saml-idp-'));
  try {
    writeFileSync(path.join(dir, 'idp.key'), key);
    execFileSync(
      'openssl',
      ['req', '-x509', '-key', path.join(dir, 'idp.key'), '-subj', `/CN=${cn}`, '-days', '3650', '-out', path.join(dir, 'idp.crt')],
      {
        stdio: 'ignore',
      },
    );
    return { key, cert: readFileSync(path.join(dir, 'idp.crt'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The AuthnRequest a redirect URL carries (HTTP-Redirect binding: deflated, base64). */
export function parseAuthnRequest(url: string): { id: string; acsUrl: string; issuer: string; relayState: string | null; xml: string } {
  const u = new URL(url);
  const xml = inflateRawSync(Buffer.from(u.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
  const attr = (name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(xml)?.[1] ?? '';
  return {
    id: attr('ID'),
    acsUrl: attr('AssertionConsumerServiceURL'),
    issuer: /<(?:\w+:)?Issuer[^>]*>([^<]*)</.exec(xml)?.[1] ?? '',
    relayState: u.searchParams.get('RelayState'),
    xml,
  };
}

export interface AssertionOptions {
  inResponseTo: string;
  acsUrl: string;
  audience: string;
  email?: string;
  name?: string;
  /** false: no signature at all. */
  sign?: boolean;
  /** Sign with this key instead of the IdP's. */
  signWith?: KeyPair;
  /** Issuer of the response and assertion (default: the IdP's entity id). */
  issuer?: string;
  /** Shift the assertion's time window (ms; negative = in the past). */
  shiftMs?: number;
  /** Reuse an assertion id (a replay of a captured assertion keeps its id). */
  assertionId?: string;
  /**
   * Signature wrapping: the genuinely signed assertion (for `email`) travels beside a forged one
   * (for `forgedEmail`) with the same id: inside <samlp:Extensions>, as a second assertion, or
   * with the signature copied into the forged assertion.
   */
  wrap?: 'extensions' | 'two-assertions' | 'copied-signature';
  forgedEmail?: string;
}

const xmlEsc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
const NS = 'xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"';

function assertionXml(o: AssertionOptions & { id: string; issuer: string; email: string }): string {
  const now = Date.now() + (o.shiftMs ?? 0);
  const iso = (ms: number) => new Date(ms).toISOString();
  return (
    `<saml:Assertion ${NS} ID="${o.id}" Version="2.0" IssueInstant="${iso(now)}">` +
    `<saml:Issuer>${xmlEsc(o.issuer)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${xmlEsc(o.email)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
    `<saml:SubjectConfirmationData InResponseTo="${xmlEsc(o.inResponseTo)}" NotOnOrAfter="${iso(now + 5 * 60_000)}" Recipient="${xmlEsc(o.acsUrl)}"/>` +
    `</saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${iso(now - 60_000)}" NotOnOrAfter="${iso(now + 5 * 60_000)}">` +
    `<saml:AudienceRestriction><saml:Audience>${xmlEsc(o.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(now)}" SessionIndex="_s${randomBytes(6).toString('hex')}"><saml:AuthnContext>` +
    `<saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef>` +
    `</saml:AuthnContext></saml:AuthnStatement>` +
    (o.name
      ? `<saml:AttributeStatement><saml:Attribute Name="displayName"><saml:AttributeValue>${xmlEsc(o.name)}</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>`
      : '') +
    `</saml:Assertion>`
  );
}

function signAssertion(xml: string, kp: KeyPair): string {
  const sig = new SignedXml({
    privateKey: kp.key,
    publicCert: kp.cert,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  sig.addReference({
    xpath: "/*[local-name(.)='Assertion']",
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  sig.computeSignature(xml, { location: { reference: "/*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' } });
  return sig.getSignedXml();
}

export interface TestIdp {
  entityId: string;
  keys: KeyPair;
  /** The IdP's single sign-on URL (HTTP-Redirect binding). */
  ssoUrl: string;
  /** Audience and e-mail the browser flow's next response uses. */
  next: { audience: string; email: string; name?: string };
  /** A base64 SAMLResponse as the IdP would POST it. */
  response(o: AssertionOptions): { samlResponse: string; assertionId: string };
  close(): Promise<void>;
}

export async function startTestIdp(entityId = `https://idp.test/${randomBytes(4).toString('hex')}`): Promise<TestIdp> {
  const keys = makeKeyPair();
  const idp: TestIdp = {
    entityId,
    keys,
    ssoUrl: '',
    next: { audience: '', email: '' },
    response(o) {
      const issuer = o.issuer ?? entityId;
      const id = o.assertionId ?? `_a${randomBytes(10).toString('hex')}`;
      const email = o.email ?? 'someone@example.com';
      const plain = assertionXml({ ...o, id, issuer, email });
      const signed = o.sign === false ? plain : signAssertion(plain, o.signWith ?? keys);
      let body = signed;
      if (o.wrap) {
        const forged = assertionXml({ ...o, id, issuer, email: o.forgedEmail ?? 'admin@victim.test' });
        if (o.wrap === 'extensions') {
          body = `<samlp:Extensions>${signed}</samlp:Extensions>${forged}`;
        } else if (o.wrap === 'two-assertions') {
          body = `${forged}${signed}`;
        } else {
          const signature = /<(?:ds:)?Signature[\s\S]*<\/(?:ds:)?Signature>/.exec(signed)![0];
          body = forged.replace(/(<\/saml:Issuer>)/, `$1${signature}`);
        }
      }
      const now = new Date(Date.now() + (o.shiftMs ?? 0)).toISOString();
      const xml =
        `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ${NS} ID="_r${randomBytes(10).toString('hex')}" Version="2.0" ` +
        `IssueInstant="${now}" Destination="${xmlEsc(o.acsUrl)}" InResponseTo="${xmlEsc(o.inResponseTo)}">` +
        `<saml:Issuer>${xmlEsc(issuer)}</saml:Issuer>` +
        `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
        body +
        `</samlp:Response>`;
      return { samlResponse: Buffer.from(xml).toString('base64'), assertionId: id };
    },
    close: async () => {},
  };
  const server = await serve((req, res) => {
    const url = new URL(req.url ?? '/', 'http://idp.local');
    if (req.method !== 'GET' || url.pathname !== '/sso' || !url.searchParams.get('SAMLRequest')) {
      res.writeHead(404).end();
      return;
    }
    // A real IdP would authenticate the person here; this one signs them in as `next.email`.
    const request = parseAuthnRequest(`http://idp.local${req.url}`);
    const { samlResponse } = idp.response({
      inResponseTo: request.id,
      acsUrl: request.acsUrl,
      audience: idp.next.audience || request.issuer,
      email: idp.next.email,
      name: idp.next.name,
    });
    const relay = request.relayState ? `<input type="hidden" name="RelayState" value="${xmlEsc(request.relayState)}">` : '';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html><body onload="document.forms[0].submit()"><form method="post" action="${xmlEsc(request.acsUrl)}">` +
        `<input type="hidden" name="SAMLResponse" value="${samlResponse}">${relay}<noscript><button>Continue</button></noscript></form></body></html>`,
    );
  });
  idp.ssoUrl = `${server.url}/sso`;
  idp.close = server.close;
  return idp;
}
