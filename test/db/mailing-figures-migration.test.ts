import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { type Queryable, queryRows, sql } from "../../src/db/database.ts";
import { loadMigrations, migrate } from "../../src/db/migrate.ts";
import { databaseLabel, openTestDatabase } from "../helpers/harness.ts";

const MAILING_FIGURES_MIGRATION = "0690_figures_per_reactivation_mailing";

/** The roll-up's sums by source (months and shards added up), zero rows left out. */
const bySource = async (db: Queryable, orgId: string) =>
  sortedBySource(
    await queryRows<{ source: string; mailed: string; deals: string; revenue: string; cents: string }>(
      db,
      sql`SELECT source, sum(cards_mailed)::text AS mailed, sum(won_deals)::text AS deals,
               sum(revenue)::numeric(14,2)::text AS revenue, sum(cost_cents)::text AS cents
        FROM monthly_mail_figures WHERE org_id = ${orgId}::uuid GROUP BY source
        HAVING sum(cards_mailed) <> 0 OR sum(won_deals) <> 0`,
    ),
  );

/** In code-point order, whatever the database's collation. */
const sortedBySource = <Row extends { source: string }>(rows: Row[]) =>
  [...rows].sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));

describe(`monthly_mail_figures: migration keying each reactivation mailing apart (${databaseLabel})`, () => {
  it("splits the rows kept as 'reactivation' by mailing, leaves every other source's, and new rows follow", async () => {
    const all = await loadMigrations();
    const { database, drop } = await openTestDatabase({
      migrations: all.filter((migration) => migration.version < MAILING_FIGURES_MIGRATION),
    });
    try {
      const { db } = database;
      const [orgId, automationId, automation, spring, fall, recorded] = [
        randomUUID(),
        randomUUID(),
        randomUUID(),
        randomUUID(),
        randomUUID(),
        randomUUID(),
      ] as const;
      await db.execute(sql`INSERT INTO organizations (id, name) VALUES (${orgId}::uuid, 'Rita''s Roofing')`);
      await db.execute(sql`INSERT INTO campaigns (org_id, id, name, automation_id, origin) VALUES
        (${orgId}::uuid, ${automation}::uuid, 'Job done', ${automationId}::uuid, 'event'),
        (${orgId}::uuid, ${spring}::uuid, 'Spring tune-up', NULL, 'reactivation'),
        (${orgId}::uuid, ${fall}::uuid, 'Fall furnace check', NULL, 'reactivation'),
        (${orgId}::uuid, ${recorded}::uuid, 'Pine Street', NULL, 'mailing')`);
      const mail = async (campaign: string, count: number, mailedAt: string, cents: number) => {
        for (let index = 0; index < count; index++) {
          await db.execute(sql`INSERT INTO mail_pieces (org_id, id, campaign_id, status, recipient_name, address,
              street, city, state, zip, normalized_address, token, mailed_at, created_at, cost_cents)
            VALUES (${orgId}::uuid, gen_random_uuid(), ${campaign}::uuid, 'mailed', 'Home',
              '1 Main St, Springfield, IL 62704', '1 Main St', 'Springfield', 'IL', '62704',
              '1 MAIN ST, SPRINGFIELD IL 62704', ${randomUUID()}, ${mailedAt}::timestamptz,
              ${mailedAt}::timestamptz, ${cents})`);
        }
      };
      const win = (campaign: string, amount: string, closed: string) =>
        db.execute(sql`INSERT INTO conversions (org_id, id, idempotency_key, address, normalized_address,
            deal_amount, deal_date, campaign_id, match_method, match_confidence, attribution_type)
          VALUES (${orgId}::uuid, gen_random_uuid(), ${randomUUID()}, '1 Main St', '1 MAIN ST',
            ${amount}::numeric, ${closed}::timestamptz, ${campaign}::uuid, 'address', 'high', 'direct')`);
      await mail(automation, 1, "2026-03-10T12:00:00Z", 90);
      await mail(spring, 2, "2026-03-31T23:59:59Z", 85);
      await mail(fall, 3, "2026-10-01T00:00:00Z", 110);
      await mail(recorded, 1, "2026-05-05T12:00:00Z", 85);
      await win(spring, "5000", "2026-04-02T00:00:00Z");
      await win(fall, "1200.50", "2026-10-20T00:00:00Z");
      await win(fall, "800", "2026-11-20T00:00:00Z");

      const before = await bySource(db, orgId);
      assert.deepEqual(
        before.map((row) => row.source),
        sortedBySource([automationId, "reactivation", "recorded"].map((source) => ({ source }))).map(
          (row) => row.source,
        ),
        "before, the two mailings share one row",
      );

      await migrate(
        db,
        all.filter((migration) => migration.version <= MAILING_FIGURES_MIGRATION),
      );
      const after = await bySource(db, orgId);
      const unchanged = before.filter((row) => row.source !== "reactivation");
      assert.deepEqual(
        after,
        sortedBySource([
          ...unchanged,
          { source: `reactivation:${fall}`, mailed: "3", deals: "2", revenue: "2000.50", cents: "330" },
          { source: `reactivation:${spring}`, mailed: "2", deals: "1", revenue: "5000.00", cents: "170" },
        ]),
      );
      const months = await queryRows<{ source: string; month: string }>(
        db,
        sql`SELECT DISTINCT source, to_char(month, 'YYYY-MM') AS month FROM monthly_mail_figures
            WHERE org_id = ${orgId}::uuid AND source = ${`reactivation:${spring}`} ORDER BY month`,
      );
      assert.deepEqual(
        months.map((row) => row.month),
        ["2026-03", "2026-04"],
        "each figure stays in its month",
      );

      // Written after: kept under the mailing's own key, as a recount from the rows gives it.
      await mail(spring, 1, "2026-04-15T12:00:00Z", 85);
      await win(recorded, "300", "2026-05-20T00:00:00Z");
      const kept = await bySource(db, orgId);
      assert.equal(kept.find((row) => row.source === `reactivation:${spring}`)?.mailed, "3");
      await db.execute(sql`SELECT rebuild_monthly_mail_figures(${orgId}::uuid)`);
      assert.deepEqual(await bySource(db, orgId), kept);
      assert.equal(kept.filter((row) => row.source === "reactivation").length, 0);
    } finally {
      await drop();
    }
  });
});
