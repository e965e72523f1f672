import { randomUUID } from "node:crypto";
import { type Database, queryRows, sql } from "../../src/db/database.ts";

/** What one organization's history holds, written straight in SQL (issue 41's app-at-scale). */
export interface AppHistorySize {
  pieces: number;
  leads: number;
  conversions: number;
  customers: number;
}

export interface SeededHistory {
  automationIds: string[];
  pieceId: string;
  leadId: string;
}

const AUTOMATIONS = ["Job completed: thank-you", "Neighbors of finished jobs", "Estimate follow-up"];

/**
 * A year of one organization's mail: three automations; one campaign per four pieces (events make
 * one campaign per card, neighbour jobs one per dozens); pieces mostly mailed or delivered, with a
 * few hundred waiting for approval or held; leads on every tenth piece, most opened; conversions on
 * every fiftieth, attributed; customers at their own addresses. Each table in one INSERT … SELECT.
 */
export async function seedAppHistory(
  database: Database,
  orgId: string,
  size: AppHistorySize,
): Promise<SeededHistory> {
  const { db } = database;
  // Counted once at the end instead of row by row as the triggers would (a million upserts).
  await setFiguresTriggers(database, "DISABLE");
  const automationIds = AUTOMATIONS.map(() => randomUUID());
  for (const [index, id] of automationIds.entries()) {
    await db.execute(
      sql`INSERT INTO automations (org_id, id, name) VALUES (${orgId}, ${id}, ${AUTOMATIONS[index]!})`,
    );
  }
  const campaigns = Math.max(1, Math.floor(size.pieces / 4));
  await db.execute(sql`
    INSERT INTO campaigns (org_id, id, name, automation_id, origin, created_at)
    SELECT ${orgId}::uuid, gen_random_uuid(), 'Campaign ' || g,
           (${`{${automationIds.join(",")}}`}::uuid[])[1 + g % 3], 'event', now() - make_interval(mins => g % 525600)
    FROM generate_series(1, ${campaigns}::int) AS g`);
  await db.execute(sql`
    CREATE TEMP TABLE bench_campaigns AS
    SELECT id, row_number() OVER (ORDER BY id) - 1 AS n FROM campaigns WHERE org_id = ${orgId}::uuid`);
  await db.execute(sql`
    INSERT INTO mail_pieces (org_id, id, campaign_id, status, recipient_name, address, street, city, state, zip,
                             normalized_address, token, mailed_at, created_at, status_updated_at)
    SELECT ${orgId}::uuid, gen_random_uuid(), c.id,
           CASE WHEN g <= 200 THEN 'awaiting_approval' WHEN g <= 300 THEN 'held'
                WHEN g % 100 < 60 THEN 'mailed' WHEN g % 100 < 85 THEN 'delivered'
                WHEN g % 100 < 90 THEN 'in_transit' WHEN g % 100 < 92 THEN 'returned'
                WHEN g % 100 < 97 THEN 'suppressed' ELSE 'skipped' END,
           'Homeowner ' || g, g || ' Scale Ave, Springfield, IL 62704', g || ' Scale Ave', 'Springfield', 'IL', '62704',
           g || ' SCALE AVE, SPRINGFIELD IL 62704', 'scale-' || ${orgId.slice(0, 8)} || '-' || g,
           CASE WHEN g > 300 AND g % 100 < 92 THEN now() - make_interval(mins => g % 525600) END,
           now() - make_interval(mins => g % 525600), now() - make_interval(mins => g % 525600)
    FROM generate_series(1, ${size.pieces}::int) AS g
    JOIN bench_campaigns c ON c.n = g % ${campaigns}::int`);
  await db.execute(sql`
    CREATE TEMP TABLE bench_pieces AS
    SELECT id, campaign_id, normalized_address, address, row_number() OVER (ORDER BY id) AS n
    FROM mail_pieces WHERE org_id = ${orgId}::uuid AND mailed_at IS NOT NULL`);
  await db.execute(sql`
    INSERT INTO leads (org_id, id, source, campaign_id, piece_id, first_name, last_name, email, phone,
                       full_address, normalized_address, created_at, opened_at, attribution_type)
    SELECT ${orgId}::uuid, gen_random_uuid(), 'landing_page', p.campaign_id, p.id, 'Lee', 'Lead ' || p.n,
           'lead' || p.n || '@example.com', '555-0100', p.address, p.normalized_address,
           now() - make_interval(mins => ((p.n * 7) % 525600)::int),
           CASE WHEN p.n % 20 <> 0 THEN now() END, 'direct'
    FROM bench_pieces p WHERE p.n % 10 = 0 AND p.n / 10 <= ${size.leads}::int`);
  await db.execute(sql`
    INSERT INTO conversions (org_id, id, idempotency_key, deal_id, address, normalized_address, deal_amount,
                             deal_date, deal_name, campaign_id, piece_id, match_method, match_confidence,
                             attribution_type, created_at)
    SELECT ${orgId}::uuid, gen_random_uuid(), 'deal-' || p.n, 'deal-' || p.n, p.address, p.normalized_address,
           1000 + p.n % 9000, now() - make_interval(mins => ((p.n * 11) % 525600)::int), 'Roof ' || p.n,
           p.campaign_id, p.id, 'address', 'high', CASE WHEN p.n % 100 = 0 THEN 'direct' ELSE 'indirect' END,
           now() - make_interval(mins => ((p.n * 11) % 525600)::int)
    FROM bench_pieces p WHERE p.n % 50 = 0 AND p.n / 50 <= ${size.conversions}::int`);
  await db.execute(sql`
    INSERT INTO customers (org_id, normalized_address, address, source, created_at)
    SELECT ${orgId}::uuid, g || ' CUSTOMER RD, SPRINGFIELD IL 62704', g || ' Customer Rd, Springfield, IL 62704',
           'customers', now() - make_interval(mins => g % 525600)
    FROM generate_series(1, ${size.customers}::int) AS g`);
  await db.execute(sql`SELECT rebuild_monthly_mail_figures(${orgId}::uuid)`);
  await db.execute(sql`SELECT rebuild_piece_status_counts(${orgId}::uuid)`);
  await setFiguresTriggers(database, "ENABLE");
  for (const table of [
    "campaigns",
    "mail_pieces",
    "leads",
    "conversions",
    "customers",
    "monthly_mail_figures",
  ]) {
    await db.execute(sql.raw(`ANALYZE ${table}`));
  }
  const [piece] = await queryRows<{ id: string }>(db, sql`SELECT id FROM bench_pieces WHERE n = 10`);
  const [lead] = await queryRows<{ id: string }>(
    db,
    sql`SELECT id FROM leads WHERE org_id = ${orgId}::uuid ORDER BY created_at DESC LIMIT 1`,
  );
  await db.execute(sql`DROP TABLE bench_campaigns`);
  await db.execute(sql`DROP TABLE bench_pieces`);
  return { automationIds, pieceId: piece!.id, leadId: lead!.id };
}

const FIGURES_TRIGGERS = {
  mail_pieces: [
    "mail_piece_priced_on_insert",
    "mail_piece_figures_on_insert",
    "mail_piece_figures_on_delete",
    "mail_piece_figures_on_update",
    "mail_piece_status_counts_on_insert",
    "mail_piece_status_counts_on_delete",
    "mail_piece_status_counts_on_update",
  ],
  leads: ["lead_figures_on_insert_or_delete", "lead_figures_on_update"],
  conversions: ["conversion_figures_on_insert_or_delete", "conversion_figures_on_update"],
};

/** Turns the roll-ups' triggers (migrations/0334, 0338) off for a bulk load, or on again. */
async function setFiguresTriggers(database: Database, action: "DISABLE" | "ENABLE") {
  for (const [table, triggers] of Object.entries(FIGURES_TRIGGERS)) {
    for (const trigger of triggers)
      await database.db.execute(sql.raw(`ALTER TABLE ${table} ${action} TRIGGER ${trigger}`));
  }
}
