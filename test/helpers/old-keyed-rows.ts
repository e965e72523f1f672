import { randomUUID } from "node:crypto";
import { type Queryable, sql } from "../../src/db/database.ts";
import type { ReferenceAddress } from "../../src/neighbours/reference-addresses.ts";

/** A stored address as its text and the key an older parser gave it. */
export type KeyedAddress = readonly [address: string, key: string];

interface Conversion {
  address: string;
  normalizedAddress: string;
  /** Defaults to the address's own `address:KEY|2026-06-15`. */
  idempotencyKey?: string;
  createdAt?: string;
}

interface Customer {
  normalizedAddress: string;
  address: string;
  notes?: string;
  source: "webhook" | "app";
  createdAt: string;
  /** Rita's by default; `other` for the second organization's. */
  org?: "rita" | "other";
}

/**
 * Writes rows in SQL exactly as an older parser keyed them, into every table holding an address
 * key: what the re-keying migration tests (0410-0480) seed before migrating. Today's code would key
 * them anew, so none of it goes through the service. Rows belong to "Rita" (and "Other" for a
 * customer of a second organization); pieces to one mailed campaign.
 */
export async function oldKeyedRows(db: Queryable) {
  const rita = randomUUID();
  const other = randomUUID();
  await db.execute(sql`INSERT INTO organizations (id, name) VALUES (${rita}, 'Rita'), (${other}, 'Other')`);
  const campaign = randomUUID();
  await db.execute(
    sql`INSERT INTO campaigns (org_id, id, name, origin) VALUES (${rita}::uuid, ${campaign}::uuid, 'History', 'mailing')`,
  );
  const values = <T>(rows: readonly T[], row: (value: T) => ReturnType<typeof sql>) =>
    sql.join(rows.map(row), sql`, `);

  return {
    /** A mailed card to the address under the key; its id, for an opt-out or a held-out deal. */
    async piece(address: string, key: string): Promise<string> {
      const id = randomUUID();
      await db.execute(
        sql`INSERT INTO mail_pieces (org_id, id, campaign_id, status, address, normalized_address, token, mailed_at)
            VALUES (${rita}::uuid, ${id}::uuid, ${campaign}::uuid, 'mailed', ${address}, ${key}, ${randomUUID()},
                    '2026-05-01T10:00:00Z')`,
      );
      return id;
    },

    async leads(...leads: KeyedAddress[]) {
      await db.execute(
        sql`INSERT INTO leads (org_id, id, source, full_address, normalized_address)
            VALUES ${values(leads, ([address, key]) => sql`(${rita}::uuid, ${randomUUID()}::uuid, 'crm_sync', ${address}, ${key})`)}`,
      );
    },

    async conversions(...conversions: Conversion[]) {
      await db.execute(
        sql`INSERT INTO conversions (org_id, id, idempotency_key, address, normalized_address, campaign_id,
              match_method, match_confidence, attribution_type, created_at)
            VALUES ${values(
              conversions,
              (c) =>
                sql`(${rita}::uuid, ${randomUUID()}::uuid, ${c.idempotencyKey ?? `address:${c.normalizedAddress}|2026-06-15`},
                     ${c.address}, ${c.normalizedAddress}, ${campaign}::uuid, 'address', 'medium', 'indirect',
                     ${c.createdAt ?? "2026-06-15T09:00:00Z"})`,
            )}`,
      );
    },

    /** A deal at a held-out home (no address stored, only the key in its idempotency key). */
    async heldOutDeal(idempotencyKey: string, pieceId: string) {
      await db.execute(
        sql`INSERT INTO holdout_conversions (org_id, idempotency_key, automation_id, piece_id, deal_date)
            VALUES (${rita}::uuid, ${idempotencyKey}, ${randomUUID()}::uuid, ${pieceId}::uuid, '2026-06-20T00:00:00Z')`,
      );
    },

    /** One staged import holding these rows, in order. */
    async importRows(...rows: KeyedAddress[]) {
      const batch = randomUUID();
      await db.execute(
        sql`INSERT INTO imports (org_id, id, source, status, staged) VALUES (${rita}::uuid, ${batch}::uuid, 'jobs', 'staged', ${rows.length})`,
      );
      await db.execute(
        sql`INSERT INTO import_rows (org_id, import_id, row_index, address, normalized_address)
            VALUES ${values(
              rows.map((row, index) => [index, ...row] as const),
              ([index, address, key]) => sql`(${rita}::uuid, ${batch}::uuid, ${index}, ${address}, ${key})`,
            )}`,
      );
    },

    async customers(...customers: Customer[]) {
      await db.execute(
        sql`INSERT INTO customers (org_id, normalized_address, address, notes, source, created_at)
            VALUES ${values(
              customers,
              (c) =>
                sql`(${c.org === "other" ? other : rita}::uuid, ${c.normalizedAddress}, ${c.address}, ${c.notes ?? null},
                     ${c.source}, ${c.createdAt})`,
            )}`,
      );
    },

    /** Opt-outs from these cards, each under the key it was stored with. */
    async doNotMail(...optOuts: { normalizedAddress: string; pieceId: string; createdAt: string }[]) {
      await db.execute(
        sql`INSERT INTO do_not_mail (org_id, normalized_address, reason, piece_id, created_at)
            VALUES ${values(optOuts, (o) => sql`(${rita}::uuid, ${o.normalizedAddress}, 'opted_out', ${o.pieceId}::uuid, ${o.createdAt})`)}`,
      );
    },

    /** Reference homes, and each of their ZIPs' home count as the loader keeps it. */
    async referenceHomes(homes: ReferenceAddress[], homesOfZip: Record<string, number>) {
      await db.execute(
        sql`INSERT INTO reference_addresses (normalized_address, street, city, state, zip, latitude, longitude)
            VALUES ${values(homes, (h) => sql`(${h.normalizedAddress}, ${h.street}, ${h.city}, ${h.state}, ${h.zip}, ${h.latitude}, ${h.longitude})`)}`,
      );
      await db.execute(
        sql`INSERT INTO reference_address_zips (zip, homes)
            VALUES ${values(Object.entries(homesOfZip), ([zip, count]) => sql`(${zip}, ${count})`)}`,
      );
    },

    /** A neighbour mailing around this reference home, which it names by key. */
    async neighbourCampaign(home: ReferenceAddress) {
      await db.execute(
        sql`INSERT INTO neighbour_campaigns (org_id, campaign_id, job_street, job_city, latitude, longitude, count, radius_m, home_key)
            VALUES (${rita}::uuid, ${randomUUID()}::uuid, ${home.street}, ${home.city}, ${home.latitude},
                    ${home.longitude}, 10, 400, ${home.normalizedAddress})`,
      );
    },
  };
}
