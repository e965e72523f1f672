// Images of a piece's card for people to look at (Mail's thumbnails, a piece's page), kept in
// piece_images for every API process. A card that went to the printer no longer changes: its images
// are drawn once (its list thumbnail with its print files, its page's sides the first time anyone
// looks) and kept with no key. A card still waiting (held, awaiting approval,
// scheduled, …) follows its organization's profile and its template: its images are kept with the
// key of what the card was drawn from (current-card-image.ts), and are good while that key holds.

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

/** A kept image; `cardKey` null: a printed card's, final. */
export interface KeptImage {
  png: Buffer;
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
  const row = await queryOne<{ status: PieceStatus; png: string | null; card_key: string | null }>(
    db,
    sql`SELECT p.status, encode(i.png, 'base64') AS png, i.card_key
          FROM mail_pieces p
          LEFT JOIN piece_images i
            ON i.org_id = p.org_id AND i.piece_id = p.id AND i.image = ${imageName(side, size)}
         WHERE p.org_id = ${orgId}::uuid AND p.id = ${pieceId}::uuid`,
  );
  if (!row) return undefined;
  return {
    printed: isPrinted(row.status),
    kept: row.png ? { png: Buffer.from(row.png, "base64"), cardKey: row.card_key } : undefined,
  };
}

/**
 * Keeps one side of a card at one size: with the key of the card it was drawn from, or with none
 * for a printed card (final). A waiting card's image replaces the one kept before (an older key);
 * a final image is never replaced. Requests drawing the same image at once all succeed.
 */
export async function keepPieceImage(
  db: Queryable,
  image: PieceImageRef,
  png: Buffer,
  cardKey: string | null,
): Promise<void> {
  await db.execute(
    sql`INSERT INTO piece_images (org_id, piece_id, image, png, card_key)
        VALUES (${image.orgId}::uuid, ${image.pieceId}::uuid, ${imageName(image.side, image.size)},
                decode(${png.toString("base64")}, 'base64'), ${cardKey})
        ON CONFLICT (org_id, piece_id, image) DO UPDATE
          SET png = EXCLUDED.png, card_key = EXCLUDED.card_key, created_at = now()
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

/** A printed card's list thumbnail: drawn with its print files, or the kept one that shows it, made final. */
export type PrintedThumbnail = { png: Buffer } | { finalKey: string };

/**
 * Keeps a printed card's list thumbnail final; false when the kept one to make final was replaced
 * by another drawing since the print read it.
 */
export async function keepPrintedThumbnail(
  db: Queryable,
  piece: { orgId: string; id: string },
  thumbnail: PrintedThumbnail,
): Promise<boolean> {
  const image = { orgId: piece.orgId, pieceId: piece.id, ...LIST_THUMBNAIL };
  if (!("png" in thumbnail)) return makePieceImageFinal(db, image, thumbnail.finalKey);
  await keepPieceImage(db, image, thumbnail.png, null);
  return true;
}

/**
 * What is kept of one image, as a statement's column `kept` (read by `keptKeyOf`): for a statement
 * that reads it on its way (the print's claim of its piece). One read of the kept row: null when none
 * is kept, else an object holding its key (null when final).
 */
export function keptImageColumnsSql(image: PieceImageRef): SQL {
  return sql`(SELECT json_build_object('key', i.card_key) FROM piece_images i
               WHERE i.org_id = ${image.orgId}::uuid AND i.piece_id = ${image.pieceId}::uuid
                 AND i.image = ${imageName(image.side, image.size)}) AS kept`;
}

/** The key the image is kept with: undefined when none is kept, null when it is final. */
export const keptKeyOf = (row: KeptImageColumns): string | null | undefined => row.kept?.key;

/** The column `keptImageColumnsSql` adds to a statement's rows. */
export interface KeptImageColumns {
  kept: { key: string | null } | null;
}
