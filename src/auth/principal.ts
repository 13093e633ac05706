/** Who is calling: resolved from the bearer token on every authenticated request. */
export interface Principal {
  userId: string;
  tokenId: string;
  /** The organization whose single sign-on issued this credential (an SSO session or the token it minted). */
  ssoOrgId?: string | null;
}
