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
  /** The lookup when the key's answer is cached (no database query, none awaited), else undefined. */
  cachedLookup(token: string): KeyLookup | undefined;
  /** Notes a use of the key, once a request made with it was let in. */
  recordUse(auth: AuthContext): void;
}
