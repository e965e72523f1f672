import { hash, randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const PREFIX = "ak_";
const BODY_LENGTH = 43; // 32 random bytes in base62 (62^43 > 2^256)
const CHECKSUM_LENGTH = 6; // a CRC32 in base62, like GitHub's tokens
const KEY_PATTERN = new RegExp(`^${PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);

function toBase62(value: bigint, length: number): string {
  let out = "";
  let rest = value;
  while (rest > 0n) {
    out = BASE62[Number(rest % 62n)] + out;
    rest /= 62n;
  }
  return out.padStart(length, "0");
}

function checksum(body: string): string {
  return toBase62(BigInt(crc32(body)), CHECKSUM_LENGTH);
}

/** A new key: `ak_` + 43 base62 chars of 32 random bytes + a 6-char checksum. */
export function generateApiKey(): string {
  const body = toBase62(BigInt(`0x${randomBytes(32).toString("hex")}`), BODY_LENGTH);
  return `${PREFIX}${body}${checksum(body)}`;
}

/** Shape and checksum only: a mistyped key is refused without a database lookup. */
export function isWellFormedApiKey(candidate: string): boolean {
  if (!KEY_PATTERN.test(candidate)) return false;
  const body = candidate.slice(PREFIX.length, PREFIX.length + BODY_LENGTH);
  return candidate.slice(PREFIX.length + BODY_LENGTH) === checksum(body);
}

/** A key's shape with a checksum that does not match: a character was mistyped (it cannot be any issued key). */
export function isMistypedApiKey(candidate: string): boolean {
  return KEY_PATTERN.test(candidate) && !isWellFormedApiKey(candidate);
}

/** Keys are stored only as this hash and looked up by it. */
export function hashApiKey(key: string): string {
  return hash("sha256", key, "hex");
}

/** Reads the bearer token of an Authorization header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
