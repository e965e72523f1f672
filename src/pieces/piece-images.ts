// Images of a piece's card for people to look at (Mail's thumbnails as PNG, a piece's page's sides as
// gzipped SVG previews), kept in piece_images for every API process. A card that went to the printer
// no longer changes: its images are drawn once, with its print files, and kept with no key. A card
// still waiting (held, awaiting approval, scheduled, …) follows its organization's profile and its
// template: its images are kept with the key of what the card was drawn from (current-card-image.ts),
// and are good while that key holds.

import type { SQL } from "drizzle-orm";
import { type Queryable, queryOne, sql } from "../db/database.ts";
import type { PieceStatus } from "../db/schema.ts";
import { isUuid } from "../domain/uuid.ts";
import type { CardSide } from "../render/render.ts";
import type { ProofSize } from "./piece-proof.ts";
import { isPrinted } from "./status-sql.ts";

/** Names one kept image: a side of a piece's card at one size. */
export interface PieceImageRef {
  orgId: string;
  pieceId: string;
  side: CardSide;
  size: ProofSize;
}

export const imageName = (side: CardSide, size: ProofSize) =>
  size === "thumbnail" ? `${side}_thumbnail` : side;

/** The image Mail lists a card with: its front as a thumbnail. */
export const LIST_THUMBNAIL = { side: "front", size: "thumbnail" } as const;

/** The images a printed card is kept with, drawn with its print files: its list thumbnail, its page's sides. */
export const PRINTED_IMAGES = [
  LIST_THUMBNAIL,
  { side: "front", size: "full" },
  { side: "back", size: "full" },
] as const satisfies readonly { side: CardSide; size: ProofSize }[];

/** A kept image (PNG for a thumbnail, gzipped SVG for a side's preview); `cardKey` null: a printed card's, final. */
export interface KeptImage {
  bytes: Buffer;
  cardKey: string | null;
}

export interface PieceImage {
  /** The card went to the printer: once drawn, its image is final. */
  printed: boolean;
  kept: KeptImage | undefined;
}

/** The piece's kept image of one side at one size, if any; undefined: no such piece in the org. */
export async function findPieceImage(
  db: Queryable,
  orgId: string,
  pieceId: string,
  side: CardSide,
  size: ProofSize,
): Promise<PieceImage | undefined> {
  if (!isUuid(pieceId)) return undefined;
  // Base64 both ways, as organization logos are: PGlite and node-postgres hand bytea over differently.
  const row = await queryOne<{ status: PieceStatus; bytes: string | null; card_key: string | null }>(
    db,
    sql`SELECT p.status, encode(i.bytes, 'base64') AS bytes, i.card_key
          FROM mail_pieces p
          LEFT JOIN piece_images i
            ON i.org_id = p.org_id AND i.piece_id = p.id AND i.image = ${imageName(side, size)}
         WHERE p.org_id = ${orgId}::uuid AND p.id = ${pieceId}::uuid`,
  );
  if (!row) return undefined;
  return {
    printed: isPrinted(row.status),
    kept: row.bytes ? { bytes: Buffer.from(row.bytes, "base64"), cardKey: row.card_key } : undefined,
  };
}

/**
 * Keeps one side of a card at one size: with the key of the card it was drawn from, or with none
 * for a printed card (final). A waiting card's image replaces the one kept before (an older key);
 * a final image is never replaced. Requests drawing the same image at once all succeed.
 */
export function keepPieceImage(
  db: Queryable,
  image: PieceImageRef,
  bytes: Buffer,
  cardKey: string | null,
): Promise<void> {
  return keepPieceImages(db, [{ image, bytes }], cardKey);
}

/** keepPieceImage for several images in one statement (a printed card's, drawn with its print files). */
async function keepPieceImages(
  db: Queryable,
  images: readonly { image: PieceImageRef; bytes: Buffer }[],
  cardKey: string | null,
): Promise<void> {
  const rows = images.map(
    ({ image, bytes }) =>
      sql`(${image.orgId}::uuid, ${image.pieceId}::uuid, ${imageName(image.side, image.size)},
           decode(${bytes.toString("base64")}, 'base64'), ${cardKey})`,
  );
  await db.execute(
    sql`INSERT INTO piece_images (org_id, piece_id, image, bytes, card_key)
        VALUES ${sql.join(rows, sql`, `)}
        ON CONFLICT (org_id, piece_id, image) DO UPDATE
          SET bytes = EXCLUDED.bytes, card_key = EXCLUDED.card_key, created_at = now()
          WHERE piece_images.card_key IS NOT NULL`,
  );
}

/**
 * Makes a printed card's kept image final, if it was drawn from the card with this key (the card as
 * printed); false when no such image is kept (another drawing replaced it meanwhile).
 */
export async function makePieceImageFinal(
  db: Queryable,
  image: PieceImageRef,
  cardKey: string,
): Promise<boolean> {
  const made = await queryOne<{ made: number }>(
    db,
    sql`UPDATE piece_images SET card_key = NULL
         WHERE org_id = ${image.orgId}::uuid AND piece_id = ${image.pieceId}::uuid
           AND image = ${imageName(image.side, image.size)} AND card_key = ${cardKey}
         RETURNING 1 AS made`,
  );
  return made !== undefined;
}

/** One image of a printed card: drawn with its print files, or the kept one that shows it, made final. */
export type PrintedImage = { image: PieceImageRef } & ({ bytes: Buffer } | { finalKey: string });

/**
 * Keeps a printed card's images final: those drawn with its print files in one statement, each kept
 * one that shows the card made final. Answers those not kept: a kept one to make final was replaced
 * by another drawing since the print read it.
 */
export async function keepPrintedImages(
  db: Queryable,
  printed: readonly PrintedImage[],
): Promise<PrintedImage[]> {
  const drawn = printed.filter((image) => "bytes" in image);
  if (drawn.length > 0) await keepPieceImages(db, drawn, null);
  const notKept: PrintedImage[] = [];
  for (const image of printed) {
    if ("finalKey" in image && !(await makePieceImageFinal(db, image.image, image.finalKey))) {
      notKept.push(image);
    }
  }
  return notKept;
}

/**
 * What is kept of a piece's images, as a statement's column `kept` (read by `keptKeyOf`): for a
 * statement that reads it on its way (the print's claim of its piece). One read of the piece's kept
 * rows: null when none is kept, else each kept image's name and its key (null when final).
 */
export function keptImagesSql(piece: { orgId: string; pieceId: string }): SQL {
  return sql`(SELECT json_object_agg(i.image, i.card_key) FROM piece_images i
               WHERE i.org_id = ${piece.orgId}::uuid AND i.piece_id = ${piece.pieceId}::uuid) AS kept`;
}

/** The column `keptImagesSql` adds to a statement's rows. */
export interface KeptImagesColumn {
  kept: Record<string, string | null> | null;
}

/** The key an image is kept with: undefined when none is kept, null when it is final. */
export function keptKeyOf(
  kept: KeptImagesColumn["kept"],
  image: { side: CardSide; size: ProofSize },
): string | null | undefined {
  const name = imageName(image.side, image.size);
  return kept && name in kept ? kept[name] : undefined;
}
