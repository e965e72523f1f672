/**
 * The monthly roll-up behind Overview, Revenue and the automation list (issue 41,
 * migrations/0334), and the pieces by status behind the operator's porchlight_pieces gauge (0338):
 * on random histories of pieces, leads and conversions, written, changed and
 * deleted in single- and multi-row statements and in concurrent transactions, the roll-up always
 * equals the same figures counted from the rows, and a rebuild from the rows gives it again.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { type Queryable, queryRows, sql } from "../../src/db/database.ts";
import { createOrg } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { signal } from "../helpers/signal.ts";

/** A small seeded generator (mulberry32): a failure names its seed, and the seed replays it. */
function randomFrom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    below: (n: number) => Math.floor(next() * n),
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!,
  };
}
type Random = ReturnType<typeof randomFrom>;

const STATUSES = ["queued", "mailed", "delivered", "held_out", "cancelled", "awaiting_approval"] as const;
/** A moment in the 15 months before 2026-12-15 (UTC), some on a month's first or last second. */
function momentIn(random: Random): string {
  const month = random.below(15);
  const start = Date.UTC(2025, 9 + month, 1);
  const end = Date.UTC(2025, 10 + month, 1);
  const at = random.chance(0.1) ? start : random.chance(0.1) ? end - 1000 : start + random.below(end - start);
  return new Date(at).toISOString();
}
const maybe = <T>(random: Random, value: () => T) => (random.chance(0.5) ? value() : null);

/** The roll-up's sums per month and source, and the same counted from the rows. */
async function rolledUp(db: Queryable, orgId: string) {
  return queryRows<Record<string, string>>(
    db,
    sql`SELECT to_char(month, 'YYYY-MM') AS month, source, sum(cards_queued)::text AS queued,
               sum(cards_held_out)::text AS held_out, sum(cards_mailed)::text AS mailed, sum(leads)::text AS leads,
               sum(won_deals)::text AS deals, sum(revenue)::numeric(14,2)::text AS revenue,
               sum(cards_priced)::text AS priced, sum(cost_cents)::text AS cents
        FROM monthly_mail_figures WHERE org_id = ${orgId}::uuid GROUP BY 1, 2
        HAVING sum(cards_queued) <> 0 OR sum(cards_held_out) <> 0 OR sum(cards_mailed) <> 0 OR sum(leads) <> 0
            OR sum(won_deals) <> 0 OR sum(revenue) <> 0 OR sum(cards_priced) <> 0 OR sum(cost_cents) <> 0
        ORDER BY 1, 2`,
  );
}

async function countedFromRows(db: Queryable, orgId: string) {
  const org = sql`${orgId}::uuid`;
  return queryRows<Record<string, string>>(
    db,
    sql`WITH source_of AS (
          SELECT id, COALESCE(automation_id::text,
                             CASE origin WHEN 'reactivation' THEN 'reactivation:' || id::text ELSE 'recorded' END) AS source
          FROM campaigns WHERE org_id = ${org}),
        counted AS (
          SELECT to_char(CASE WHEN p.status = 'held_out' THEN COALESCE(p.status_updated_at, p.created_at) ELSE p.created_at END
                         AT TIME ZONE 'UTC', 'YYYY-MM') AS month,
                 COALESCE(s.source, 'none') AS source, (p.status <> 'held_out')::int AS queued,
                 (p.status = 'held_out')::int AS held_out, 0 AS mailed, 0 AS leads, 0 AS deals, 0::numeric AS revenue,
                 0 AS priced, 0::bigint AS cents
          FROM mail_pieces p LEFT JOIN source_of s ON s.id = p.campaign_id WHERE p.org_id = ${org}
          UNION ALL
          SELECT to_char(p.mailed_at AT TIME ZONE 'UTC', 'YYYY-MM'), COALESCE(s.source, 'none'), 0, 0, 1, 0, 0, 0,
                 (p.cost_cents IS NOT NULL)::int, COALESCE(p.cost_cents, 0)
          FROM mail_pieces p LEFT JOIN source_of s ON s.id = p.campaign_id WHERE p.org_id = ${org} AND p.mailed_at IS NOT NULL
          UNION ALL
          SELECT to_char(l.created_at AT TIME ZONE 'UTC', 'YYYY-MM'), COALESCE(s.source, 'none'), 0, 0, 0, 1, 0, 0, 0, 0
          FROM leads l LEFT JOIN source_of s ON s.id = l.campaign_id WHERE l.org_id = ${org}
          UNION ALL
          SELECT to_char(COALESCE(v.deal_date, v.created_at) AT TIME ZONE 'UTC', 'YYYY-MM'), COALESCE(s.source, 'none'),
                 0, 0, 0, 0, 1, COALESCE(v.deal_amount, 0), 0, 0
          FROM conversions v LEFT JOIN source_of s ON s.id = v.campaign_id WHERE v.org_id = ${org})
        SELECT month, source, sum(queued)::text AS queued, sum(held_out)::text AS held_out, sum(mailed)::text AS mailed,
               sum(leads)::text AS leads, sum(deals)::text AS deals, sum(revenue)::numeric(14,2)::text AS revenue,
               sum(priced)::text AS priced, sum(cents)::text AS cents
        FROM counted GROUP BY 1, 2
        HAVING sum(queued) <> 0 OR sum(held_out) <> 0 OR sum(mailed) <> 0 OR sum(leads) <> 0
            OR sum(deals) <> 0 OR sum(revenue) <> 0 OR sum(priced) <> 0 OR sum(cents) <> 0
        ORDER BY 1, 2`,
  );
}

/** The pieces by status kept on write (migrations/0338), and the same counted from the rows. */
async function statusCounts(db: Queryable, orgId: string) {
  return queryRows<{ status: string; pieces: string }>(
    db,
    sql`SELECT status, sum(pieces)::text AS pieces FROM piece_status_counts WHERE org_id = ${orgId}::uuid
        GROUP BY status HAVING sum(pieces) <> 0 ORDER BY status`,
  );
}

async function statusesCountedFromRows(db: Queryable, orgId: string) {
  return queryRows<{ status: string; pieces: string }>(
    db,
    sql`SELECT status, count(*)::text AS pieces FROM mail_pieces WHERE org_id = ${orgId}::uuid
        GROUP BY status ORDER BY status`,
  );
}

/** One organization's random history, changed by the statements below. */
class History {
  readonly campaigns: string[] = [];
  constructor(
    readonly db: Queryable,
    readonly orgId: string,
    readonly random: Random,
    readonly automations: string[],
    /** Changes only the rows of its own campaigns: concurrent writers then never lock each other's rows. */
    readonly ownRowsOnly = false,
  ) {}

  async addCampaigns(count: number) {
    for (let i = 0; i < count; i++) {
      const id = randomUUID();
      const kind = this.random.below(4);
      const automation = kind < 2 ? this.random.pick(this.automations) : null;
      const origin = kind === 2 ? "reactivation" : kind === 3 ? "mailing" : "event";
      await this.db.execute(sql`INSERT INTO campaigns (org_id, id, name, automation_id, origin)
        VALUES (${this.orgId}::uuid, ${id}::uuid, 'Campaign', ${automation}::uuid, ${origin})`);
      this.campaigns.push(id);
    }
  }

  /** A multi-row INSERT of pieces, each from its own random row. */
  async addPieces(count: number) {
    const rows = Array.from({ length: count }, () => {
      const status = this.random.pick(STATUSES);
      const mailedAt = status === "mailed" || status === "delivered" ? momentIn(this.random) : null;
      return sql`(${this.orgId}::uuid, gen_random_uuid(), ${this.random.pick(this.campaigns)}::uuid, ${status},
        'Home', '1 Main St, Springfield, IL 62704', '1 Main St', 'Springfield', 'IL', '62704',
        '1 MAIN ST, SPRINGFIELD IL 62704', ${randomUUID()}, ${mailedAt}::timestamptz,
        ${momentIn(this.random)}::timestamptz, ${maybe(this.random, () => momentIn(this.random))}::timestamptz)`;
    });
    await this.db.execute(sql`INSERT INTO mail_pieces (org_id, id, campaign_id, status, recipient_name, address,
        street, city, state, zip, normalized_address, token, mailed_at, created_at, status_updated_at)
      VALUES ${sql.join(rows, sql`, `)}`);
  }

  async addLeads(count: number) {
    const rows = Array.from(
      { length: count },
      () => sql`(${this.orgId}::uuid, gen_random_uuid(), 'landing_page',
        ${this.random.chance(0.2) ? null : this.random.pick(this.campaigns)}::uuid, ${momentIn(this.random)}::timestamptz)`,
    );
    await this.db.execute(
      sql`INSERT INTO leads (org_id, id, source, campaign_id, created_at) VALUES ${sql.join(rows, sql`, `)}`,
    );
  }

  async addConversions(count: number) {
    const rows = Array.from({ length: count }, () => {
      const amount = this.random.chance(0.2) ? null : (this.random.below(2_000_000) / 100).toFixed(2);
      return sql`(${this.orgId}::uuid, gen_random_uuid(), ${randomUUID()}, '1 Main St', '1 MAIN ST',
        ${amount}::numeric, ${maybe(this.random, () => momentIn(this.random))}::timestamptz,
        ${this.random.pick(this.campaigns)}::uuid, 'address', 'high', 'direct', ${momentIn(this.random)}::timestamptz)`;
    });
    await this.db.execute(sql`INSERT INTO conversions (org_id, id, idempotency_key, address, normalized_address,
        deal_amount, deal_date, campaign_id, match_method, match_confidence, attribution_type, created_at)
      VALUES ${sql.join(rows, sql`, `)}`);
  }

  /** A random change to a random share of one table's rows, in one statement. */
  async change() {
    const org = sql`${this.orgId}::uuid`;
    const share = sql`${this.random.below(40)}`;
    const own = this.ownRowsOnly
      ? sql` AND campaign_id = ANY(${`{${this.campaigns.join(",")}}`}::uuid[])`
      : sql``;
    const some = sql`org_id = ${org} AND abs(hashtext(id::text || ${String(this.random.below(1e9))})) % 100 < ${share}${own}`;
    const at = sql`${momentIn(this.random)}::timestamptz`;
    const campaign = sql`${this.random.pick(this.campaigns)}::uuid`;
    const changes = [
      sql`UPDATE mail_pieces SET status = 'mailed', mailed_at = COALESCE(mailed_at, ${at}) WHERE ${some} AND status = 'queued'`,
      sql`UPDATE mail_pieces SET status = 'held_out', status_updated_at = ${at} WHERE ${some} AND status = 'queued'`,
      sql`UPDATE mail_pieces SET status = 'cancelled', status_updated_at = ${at} WHERE ${some} AND status = 'held_out'`,
      sql`UPDATE mail_pieces SET status_updated_at = ${at} WHERE ${some}`,
      sql`UPDATE mail_pieces SET mailed_at = NULL WHERE ${some}`,
      sql`UPDATE mail_pieces SET campaign_id = ${campaign}, created_at = ${at} WHERE ${some}`,
      sql`UPDATE mail_pieces SET recipient_name = 'Renamed' WHERE ${some}`,
      // The cost per card changes (a card mailed next takes it) or is cleared; a price is corrected.
      sql`INSERT INTO organization_profiles (org_id, cost_per_card_cents, updated_at)
          VALUES (${org}, ${this.random.chance(0.2) ? null : 50 + this.random.below(100)}::int, now())
          ON CONFLICT (org_id) DO UPDATE SET cost_per_card_cents = EXCLUDED.cost_per_card_cents`,
      sql`UPDATE mail_pieces SET cost_cents = cost_cents + 7 WHERE ${some} AND cost_cents IS NOT NULL`,
      sql`DELETE FROM mail_pieces WHERE ${some}`,
      sql`UPDATE leads SET created_at = ${at} WHERE ${some}`,
      sql`UPDATE leads SET campaign_id = CASE WHEN campaign_id IS NULL THEN ${campaign} END WHERE ${some}`,
      sql`UPDATE leads SET opened_at = ${at} WHERE ${some}`,
      sql`DELETE FROM leads WHERE ${some}`,
      sql`UPDATE conversions SET deal_amount = COALESCE(deal_amount, 0) + 12.34 WHERE ${some}`,
      sql`UPDATE conversions SET deal_amount = NULL, deal_date = ${at} WHERE ${some}`,
      sql`UPDATE conversions SET campaign_id = ${campaign}, deal_date = NULL WHERE ${some}`,
      sql`UPDATE conversions SET deal_name = 'Renamed' WHERE ${some}`,
      sql`DELETE FROM conversions WHERE ${some}`,
    ];
    await this.db.execute(this.random.pick(changes));
  }

  async grow(random: Random) {
    await this.addCampaigns(1 + random.below(3));
    await this.addPieces(1 + random.below(30));
    await this.addLeads(1 + random.below(8));
    await this.addConversions(1 + random.below(5));
    for (let i = random.below(4); i > 0; i--) await this.change();
  }
}

describe(`the roll-ups of pieces, leads and conversions (by month; pieces by status) (${databaseLabel})`, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ memoryLimiter: true });
  });
  after(async () => ctx.close());

  async function assertRollUpMatches(orgId: string, seed: number) {
    const { db } = ctx.database;
    const counted = await countedFromRows(db, orgId);
    const statuses = await statusesCountedFromRows(db, orgId);
    assert.deepEqual(await rolledUp(db, orgId), counted, `seed ${seed}`);
    assert.deepEqual(await statusCounts(db, orgId), statuses, `seed ${seed}: pieces by status`);
    await db.execute(sql`SELECT rebuild_monthly_mail_figures(${orgId}::uuid)`);
    await db.execute(sql`SELECT rebuild_piece_status_counts(${orgId}::uuid)`);
    assert.deepEqual(await rolledUp(db, orgId), counted, `seed ${seed}, rebuilt`);
    assert.deepEqual(await statusCounts(db, orgId), statuses, `seed ${seed}: pieces by status, rebuilt`);
  }

  test("equals the counts from the rows after random writes, changes and deletes", async () => {
    for (let round = 0; round < 6; round++) {
      const seed = Date.now() + round;
      const random = randomFrom(seed);
      const org = await createOrg(ctx);
      const history = new History(ctx.database.db, org.orgId, random, [
        randomUUID(),
        randomUUID(),
        randomUUID(),
      ]);
      for (let step = 0; step < 12; step++) await history.grow(random);
      assert.ok(
        (await rolledUp(ctx.database.db, org.orgId)).length > 3,
        `seed ${seed}: a history to compare`,
      );
      await assertRollUpMatches(org.orgId, seed);
    }
  });

  test("a rebuild while a writer's change is open waits for it and counts it once", async () => {
    const seed = Date.now();
    const random = randomFrom(seed);
    const org = await createOrg(ctx);
    const history = new History(ctx.database.db, org.orgId, random, [randomUUID()]);
    await history.addCampaigns(2);
    await history.addPieces(20);
    const { db } = ctx.database;
    const committing = signal();
    const changed = signal();
    // Every piece moves to 'returned' (and its month's mailings with it) in a transaction held open.
    const writer = db.transaction(async (tx) => {
      await tx.execute(sql`UPDATE mail_pieces SET status = 'returned', mailed_at = COALESCE(mailed_at, now())
                           WHERE org_id = ${org.orgId}::uuid`);
      changed.fire();
      await committing.done;
    });
    await changed.done;
    const rebuilds = Promise.all([
      db.execute(sql`SELECT rebuild_piece_status_counts(${org.orgId}::uuid)`),
      db.execute(sql`SELECT rebuild_monthly_mail_figures(${org.orgId}::uuid)`),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the rebuilds are waiting (or queued)
    committing.fire();
    await writer;
    await rebuilds;
    assert.deepEqual(
      await statusCounts(db, org.orgId),
      [{ status: "returned", pieces: "20" }],
      `seed ${seed}`,
    );
    assert.deepEqual(await rolledUp(db, org.orgId), await countedFromRows(db, org.orgId), `seed ${seed}`);
  });

  test("equals them after concurrent transactions, some rolled back, and only its own organization's", async () => {
    const seed = Date.now();
    const random = randomFrom(seed);
    const [org, other] = [await createOrg(ctx), await createOrg(ctx)];
    const automations = [randomUUID(), randomUUID()];
    const untouched = new History(ctx.database.db, other.orgId, random, automations);
    await untouched.grow(random);
    const before = await rolledUp(ctx.database.db, other.orgId);
    const statusesBefore = await statusCounts(ctx.database.db, other.orgId);

    const writers = Array.from({ length: 12 }, (_, index) =>
      ctx.database.db
        .transaction(async (tx) => {
          const writer = new History(tx, org.orgId, randomFrom(seed + index + 1), automations, true);
          for (let step = 0; step < 4; step++) await writer.grow(randomFrom(seed + index * 10 + step));
          if (index % 4 === 3) throw new Error("rolled back");
        })
        .catch((error: Error) => assert.equal(error.message, "rolled back", String(error.cause))),
    );
    await Promise.all(writers);
    assert.ok((await rolledUp(ctx.database.db, org.orgId)).length > 3, `seed ${seed}: a history to compare`);
    await assertRollUpMatches(org.orgId, seed);
    assert.deepEqual(
      await rolledUp(ctx.database.db, other.orgId),
      before,
      "the other organization's are unchanged",
    );
    assert.deepEqual(await statusCounts(ctx.database.db, other.orgId), statusesBefore);
  });
});
