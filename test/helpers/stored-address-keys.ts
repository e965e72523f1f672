import { type Queryable, queryRows, sql } from "../../src/db/database.ts";

/**
 * Every stored address key, table by table, each with the text it was read from, in code-point
 * order (the databases' collations order "NY" and "New York" apart): what a data migration
 * re-keying addresses (0410-0490) is checked against.
 */
export type StoredKeys = Awaited<ReturnType<typeof storedKeys>>;

export async function storedKeys(db: Queryable) {
  const keys = async (query: ReturnType<typeof sql>) =>
    (await queryRows<{ row: string }>(db, query)).map((row) => row.row).sort();
  return {
    pieces: await keys(sql`SELECT address || ' → ' || normalized_address AS row FROM mail_pieces`),
    leads: await keys(sql`SELECT full_address || ' → ' || normalized_address AS row FROM leads`),
    conversions: await keys(
      sql`SELECT address || ' → ' || normalized_address || ' (' || idempotency_key || ')' AS row FROM conversions`,
    ),
    heldOutDeals: await keys(sql`SELECT idempotency_key AS row FROM holdout_conversions`),
    importRows: await keys(sql`SELECT address || ' → ' || normalized_address AS row FROM import_rows`),
    customers: await keys(
      sql`SELECT o.name || ': ' || c.normalized_address || ' (' || c.address || ', ' || c.source || ', '
                 || coalesce(c.notes, '-') || ', ' || to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') || ')' AS row
          FROM customers c JOIN organizations o ON o.id = c.org_id`,
    ),
    doNotMail: await keys(
      sql`SELECT d.normalized_address || ' (' || p.address || ', '
                 || to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') || ')' AS row
          FROM do_not_mail d JOIN mail_pieces p ON p.org_id = d.org_id AND p.id = d.piece_id`,
    ),
    reference: await keys(
      sql`SELECT normalized_address || ' (' || street || ')' AS row FROM reference_addresses`,
    ),
    homesOfZip: await keys(sql`SELECT zip || ': ' || homes AS row FROM reference_address_zips`),
    neighbourHomes: await keys(sql`SELECT home_key AS row FROM neighbour_campaigns`),
  };
}
