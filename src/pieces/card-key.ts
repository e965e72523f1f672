import { createHash } from "node:crypto";
import type { CardContent } from "../render/card-layout.ts";

/**
 * What a card is, as a SHA-256 of everything drawn on it: its JSON, each byte array (picture, logo)
 * in it by its own SHA-256. Two cards with one key draw the same image (a builder's proof drawn a
 * moment ago; with the picture left out, part of a waiting card's kept image key, current-card-image.ts).
 */
export function cardKey(card: CardContent): string {
  const json = JSON.stringify(card, function bytesByDigest(this: Record<string, unknown>, key, value) {
    const original = this[key];
    return original instanceof Uint8Array ? createHash("sha256").update(original).digest("hex") : value;
  });
  return createHash("sha256").update(json).digest("hex");
}
