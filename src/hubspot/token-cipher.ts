import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import type { Config } from "../config.ts";
import type { Queryable } from "../db/database.ts";
import { generatedSecret } from "../db/platform-settings.ts";

/** The platform_settings row of the generated key material when AUTH_SECRET is unset. */
const GENERATED_SECRET_KEY = "hubspot_token_secret";
const FORMAT = "v1";

/**
 * HubSpot's tokens at rest: AES-256-GCM, a fresh 96-bit nonce per token, stored as
 * `v1.<nonce>.<tag>.<ciphertext>` (base64url). `open` answers undefined for anything it cannot
 * authenticate (another key, a damaged value): the connection then needs a reconnect.
 */
export interface TokenCipher {
  seal(plain: string): string;
  open(sealed: string): string | undefined;
}

export function createTokenCipher(secret: string): TokenCipher {
  // A key of its own, derived from the secret: the session cookies' HMAC never sees this one.
  const key = Buffer.from(hkdfSync("sha256", secret, "porchlight", "hubspot oauth tokens", 32));
  return {
    seal(plain) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, nonce);
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return [FORMAT, nonce, cipher.getAuthTag(), body]
        .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
        .join(".");
    },
    open(sealed) {
      const [format, nonce, tag, body, extra] = sealed.split(".");
      if (format !== FORMAT || !nonce || !tag || body === undefined || extra !== undefined) return undefined;
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64url"));
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString(
          "utf8",
        );
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * The cipher of this deployment: keyed from AUTH_SECRET when it is set (the key then never sits in
 * the database beside the tokens), else from a secret generated once and kept in platform_settings.
 */
export async function resolveTokenCipher(
  db: Queryable,
  config: Pick<Config, "authSecret">,
): Promise<TokenCipher> {
  return createTokenCipher(config.authSecret ?? (await generatedSecret(db, GENERATED_SECRET_KEY)));
}

/** The key is read from the database once per process; a failed read is tried again next time. */
export function lazyTokenCipher(db: Queryable, config: Pick<Config, "authSecret">) {
  let cipher: Promise<TokenCipher> | undefined;
  return () => {
    cipher ??= resolveTokenCipher(db, config).catch((error: unknown) => {
      cipher = undefined;
      throw error;
    });
    return cipher;
  };
}
