// Images of a piece's card for people to look at (Mail's thumbnails, a piece's page). A card that
// went to the printer no longer changes, so its images are drawn once, the first time anyone looks,
// and kept in piece_images for every API process; a card still waiting (held, awaiting approval,
// scheduled, …) follows its organization's profile, so it is drawn when asked.

import { type Queryable, queryOne, sql } from "../db/database.ts";
import type { PieceStatus } from "../db/schema.ts";
import { isUuid } from "../domain/uuid.ts";
import type { CardSide } from "../render/render.ts";
import type { ProofSize } from "./piece-proof.ts";

/** Statuses after the print files were handed to the printer: the card is what was printed. */
const PRINTED: ReadonlySet<PieceStatus> = new Set([
  "submitted",
  "mailed",
  "in_transit",
  "delivered",
  "returned",
]);

const imageName = (side: CardSide, size: ProofSize) => (size === "thumbnail" ? `${side}_thumbnail` : side);

export type StoredPieceImage =
  | { kind: "stored"; png: Buffer }
  /** Not drawn yet; `keep` says whether, once drawn, it is kept. */
  | { kind: "absent"; keep: boolean };

/** The kept image of one side, or whether the piece's images should be kept once drawn; undefined: no such piece in the org. */
export async function findPieceImage(
  db: Queryable,
  orgId: string,
  pieceId: string,
  side: CardSide,
  size: ProofSize,
): Promise<StoredPieceImage | undefined> {
  if (!isUuid(pieceId)) return undefined;
  // Base64 both ways, as organization logos are: PGlite and node-postgres hand bytea over differently.
  const row = await queryOne<{ status: PieceStatus; png: string | null }>(
    db,
    sql`SELECT p.status, encode(i.png, 'base64') AS png
          FROM mail_pieces p
          LEFT JOIN piece_images i
            ON i.org_id = p.org_id AND i.piece_id = p.id AND i.image = ${imageName(side, size)}
         WHERE p.org_id = ${orgId}::uuid AND p.id = ${pieceId}::uuid`,
  );
  if (!row) return undefined;
  if (row.png) return { kind: "stored", png: Buffer.from(row.png, "base64") };
  return { kind: "absent", keep: PRINTED.has(row.status) };
}

/** Keeps one side of a printed card at one size; a process that drew it at the same moment keeps its own copy out. */
export async function keepPieceImage(
  db: Queryable,
  orgId: string,
  pieceId: string,
  side: CardSide,
  size: ProofSize,
  png: Buffer,
): Promise<void> {
  await db.execute(
    sql`INSERT INTO piece_images (org_id, piece_id, image, png)
        VALUES (${orgId}::uuid, ${pieceId}::uuid, ${imageName(side, size)}, decode(${png.toString("base64")}, 'base64'))
        ON CONFLICT (org_id, piece_id, image) DO NOTHING`,
  );
}
