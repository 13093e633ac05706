/** Who is calling: resolved from the bearer token on every authenticated request. */
export interface Principal {
  userId: string;
  tokenId: string;
}
