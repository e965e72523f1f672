/**
 * Proofs of draft cards, cached by their inputs (issue 41): the builder asks for a proof on each
 * open and each pause in typing, often for a card it drew a moment ago (a word typed and deleted,
 * the builder opened again). A card is the same when everything drawn on it is: its text, size,
 * sender profile and logo, sample home and picture; its key is a SHA-256 of all of them. Concurrent
 * asks for one card share one drawing. Bounded by bytes, least recently used out first.
 */
import { LRUCache } from "lru-cache";
import { cardKey } from "../pieces/card-key.ts";
import type { CardContent } from "../render/card-layout.ts";

/** What is kept of a proof: its two sides as data: URLs (and what else the view holds, small). */
interface Proof {
  front_png: string;
  back_png: string;
}

export interface ProofCache {
  /** The card's proof, drawn by `draw` unless this card was drawn (or is being drawn) already. */
  proofOf<T extends Proof>(card: CardContent, draw: (card: CardContent) => Promise<T>): Promise<T>;
}

/** About 60 proofs at 150 dpi. */
export const PROOF_CACHE_BYTES = 48 * 1024 * 1024;

export function createProofCache(maxBytes = PROOF_CACHE_BYTES): ProofCache {
  const cache = new LRUCache<
    string,
    Proof,
    { card: CardContent; draw: (card: CardContent) => Promise<Proof> }
  >({
    maxSize: maxBytes,
    sizeCalculation: (proof) => proof.front_png.length + proof.back_png.length + 1,
    fetchMethod: (_key, _stale, { context }) => context.draw(context.card),
  });
  return {
    async proofOf<T extends Proof>(card: CardContent, draw: (card: CardContent) => Promise<T>) {
      const proof = await cache.fetch(cardKey(card), { context: { card, draw } });
      // fetch answers undefined only when fetchMethod does, which draw never does.
      return (proof as T | undefined) ?? draw(card);
    },
  };
}
