/** Who an API key speaks for: set on the request by the auth guard, read by routes and services. */
export interface AuthContext {
  keyId: string;
  orgId: string;
  orgName: string;
  billingOwner: boolean;
  scopes: string[] | null;
}

/** `mistyped`: the key's checksum does not match, so no lookup was made (the caller may say so). */
export type KeyLookup = { status: "valid"; auth: AuthContext } | { status: "invalid" | "mistyped" };

/** What the auth guard asks of the key store (services own the keys; http only asks). */
export interface KeyAuthenticator {
  authenticate(token: string): Promise<KeyLookup>;
  /** The lookup when the key is cached (its answer needs no new database query), else undefined. */
  cachedLookup(token: string): Promise<KeyLookup> | undefined;
}
