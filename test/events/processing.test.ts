import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { sql } from "../../src/db/database.ts";
import { admin, createAutomation, createOrg, type TestOrg } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { insertPendingPieces } from "../helpers/pieces.ts";
import {
  ADDRESS,
  boundAutomation,
  countRows,
  envelope,
  insertLead,
  NOTHING_WRITTEN,
  sendEvent,
} from "./helpers.ts";

const NOW = "2026-11-22T12:00:10Z";

describe(`POST /api/v1/events: processing rules (${databaseLabel})`, () => {
  let ctx: TestContext;
  const clock = fixedClock(NOW);
  before(async () => {
    ctx = await createTestContext({ clock });
  });
  after(async () => ctx.close());

  /** A fresh org whose automations are bound to a fresh event type, so tests never interfere. */
  async function setup(automations: Parameters<typeof boundAutomation>[1][] = [{}]) {
    const org = await createOrg(ctx);
    const eventType = `job.t${randomUUID().replace(/-/g, "").slice(0, 12)}`;
    const created = [];
    for (const extra of automations) {
      created.push(await createAutomation(ctx, org.orgId, boundAutomation(eventType, extra)));
    }
    const send = (overrides: Record<string, unknown> = {}, properties?: Record<string, unknown>) =>
      sendEvent(ctx, org.key, envelope({ event_type: eventType, ...overrides }, properties));
    return { org, eventType, automations: created, send };
  }

  /** The org's campaigns with their pieces, once the pipeline's first step has written them. */
  const campaignsOf = async (org: TestOrg) => {
    await insertPendingPieces(ctx.database.db);
    return (await admin(ctx, "GET", `/orgs/${org.orgId}/campaigns`)).body.campaigns as any[];
  };

  it("queues one campaign with one piece for the record's address and client_name (rule 8)", async () => {
    const { org, automations, send } = await setup([{ name: "Thank-you card" }]);
    const response = await send(
      { dedup_id: "job-1001" },
      { ...ADDRESS, client_name: "Jane Doe", cf_roof: "tile" },
    );
    assert.equal(response.status, 202);
    assert.deepEqual(response.body, {
      received: true,
      duplicate: false,
      matched_automations: 1,
      outcomes: [
        { automation_id: automations[0]!.id, name: "Thank-you card", matched: true, reason: "queued" },
      ],
    });
    const campaigns = await campaignsOf(org);
    assert.equal(campaigns.length, 1);
    assert.equal(campaigns[0].automation_id, automations[0]!.id);
    assert.equal(campaigns[0].pieces.length, 1);
    const piece = campaigns[0].pieces[0];
    assert.equal(piece.status, "queued");
    assert.equal(piece.address, "12 Oak Lane, Austin, TX 78701");
    assert.equal(piece.recipient_name, "Jane Doe");
    assert.match(piece.token, /^[A-Za-z0-9_-]{24}$/);
  });

  it("answers 202 with matched_automations 0 and no outcomes when nothing is bound (rule 12)", async () => {
    const { org } = await setup([]);
    const response = await sendEvent(ctx, org.key, envelope({ event_type: "nothing.bound" }));
    assert.equal(response.status, 202);
    assert.deepEqual(response.body, {
      received: true,
      duplicate: false,
      matched_automations: 0,
      outcomes: [],
    });
  });

  it("pins object types: an unpinned binding takes any type, a pinned one only its own (rule 2)", async () => {
    const { automations, send } = await setup([
      { name: "any" },
      { name: "jobs only", object_type: "job" },
      { name: "deals only", object_type: "deal" },
      { name: "contacts only", object_type: "contact" },
    ]);
    const [any, jobs, deals, contacts] = automations.map((automation) => automation.id);
    const expected: Record<string, string[]> = {
      job: [any!, jobs!],
      deal: [any!, deals!],
      contact: [any!, contacts!],
    };
    for (const [objectType, ids] of Object.entries(expected)) {
      const response = await send({ object_type: objectType });
      assert.equal(response.body.matched_automations, 2, objectType);
      assert.deepEqual(
        response.body.outcomes.map((outcome: any) => outcome.automation_id),
        ids,
        objectType,
      );
    }
  });

  it("ignores disabled automations, other event types and other organizations", async () => {
    const { org, eventType, automations, send } = await setup([
      { name: "on" },
      { name: "off", enabled: false },
    ]);
    await createAutomation(ctx, org.orgId, boundAutomation("job.other"));
    const stranger = await createOrg(ctx);
    await createAutomation(ctx, stranger.orgId, boundAutomation(eventType));
    const response = await send();
    assert.equal(response.body.matched_automations, 1);
    assert.equal(response.body.outcomes[0].automation_id, automations[0]!.id);
    assert.equal((await countRows(ctx, stranger.orgId)).campaigns, 0);
  });

  it("reports no_address unless street and at least one of city/zip are present (rule 3)", async () => {
    const { org, send } = await setup();
    const cases: [Record<string, string>, string][] = [
      [{}, "no_address"],
      [{ street: "12 Oak Lane" }, "no_address"],
      [{ street: "12 Oak Lane", state: "TX" }, "no_address"],
      [{ city: "Austin", zip: "78701" }, "no_address"],
      [{ street: "   ", city: "Austin" }, "no_address"],
      [{ street: "12 Oak Lane", city: "Austin" }, "queued"],
      [{ street: "12 Oak Lane", zip: "78701" }, "queued"],
    ];
    for (const [properties, reason] of cases) {
      const response = await send({}, properties);
      assert.equal(response.status, 202);
      assert.equal(response.body.outcomes[0].reason, reason, JSON.stringify(properties));
      assert.equal(response.body.outcomes[0].matched, reason === "queued");
    }
    assert.equal((await campaignsOf(org)).length, 2);
  });

  it("absorbs a replay of the same dedup_id per automation (rule 6)", async () => {
    const { org, automations, send } = await setup([{ name: "first" }]);
    const first = await send({ dedup_id: "deal-7" });
    assert.equal(first.body.outcomes[0].reason, "queued");
    const replay = await send({ dedup_id: "deal-7", record: { id: "other", properties: ADDRESS } });
    assert.equal(replay.status, 202);
    assert.deepEqual(replay.body, {
      received: true,
      duplicate: true,
      matched_automations: 1,
      outcomes: [{ automation_id: automations[0]!.id, name: "first", matched: false, reason: "duplicate" }],
    });
    assert.equal((await campaignsOf(org)).length, 1);
  });

  it("sets top-level duplicate only when every candidate is a duplicate", async () => {
    const { org, eventType, send } = await setup([{ name: "old" }]);
    assert.equal((await send({ dedup_id: "d-1" })).body.outcomes[0].reason, "queued");
    const late = await createAutomation(ctx, org.orgId, boundAutomation(eventType, { name: "late" }));
    const mixed = await send({ dedup_id: "d-1" });
    assert.equal(mixed.body.duplicate, false);
    assert.deepEqual(
      mixed.body.outcomes.map((outcome: any) => outcome.reason),
      ["duplicate", "queued"],
    );
    assert.equal(mixed.body.outcomes[1].automation_id, late.id);
    const replay = await send({ dedup_id: "d-1" });
    assert.equal(replay.body.duplicate, true);

    const filtered = await createAutomation(
      ctx,
      org.orgId,
      boundAutomation(eventType, {
        name: "filtered",
        filters: [{ property: "status", op: "eq", value: "won" }],
      }),
    );
    const withFiltered = await send({ dedup_id: "d-1" });
    assert.equal(withFiltered.body.duplicate, false);
    assert.equal(withFiltered.body.outcomes[2].automation_id, filtered.id);
    assert.equal(withFiltered.body.outcomes[2].reason, "filtered_out");
  });

  it("gives each queued campaign its own piece and landing token", async () => {
    const { org, send } = await setup([{ name: "a" }, { name: "b" }]);
    const response = await send();
    assert.deepEqual(
      response.body.outcomes.map((outcome: any) => outcome.reason),
      ["queued", "queued"],
    );
    const campaigns = await campaignsOf(org);
    assert.equal(campaigns.length, 2);
    const tokens = new Set(campaigns.map((campaign) => campaign.pieces[0].token));
    assert.equal(tokens.size, 2);
  });

  const filterCases: {
    filter: Record<string, unknown>;
    passes: Record<string, string>;
    fails: Record<string, string>;
  }[] = [
    {
      filter: { property: "status", op: "eq", value: "won" },
      passes: { status: "won" },
      fails: { status: "lost" },
    },
    {
      // Any case, spaces around ignored: the CRM's "Won" is the "won" typed in the builder.
      filter: { property: "status", op: "eq", value: "won" },
      passes: { status: " Won " },
      fails: { status: "Won't" },
    },
    {
      filter: { property: "cf_service", op: "contains", value: "Roof" },
      passes: { cf_service: "FULL ROOFING JOB" },
      fails: { cf_service: "gutters" },
    },
    {
      filter: { property: "status", op: "in", value: ["Won", "closed"] },
      passes: { status: "CLOSED" },
      fails: { status: "closed lost" },
    },
    {
      filter: { property: "status", op: "neq", value: "lost" },
      passes: { status: "won" },
      fails: { status: "lost" },
    },
    {
      filter: { property: "cf_service", op: "contains", value: "roof" },
      passes: { cf_service: "full roofing job" },
      fails: { cf_service: "gutters" },
    },
    {
      filter: { property: "status", op: "in", value: ["won", "closed"] },
      passes: { status: "closed" },
      fails: { status: "open" },
    },
    {
      filter: { property: "status", op: "not_in", value: ["lost", "spam"] },
      passes: { status: "won" },
      fails: { status: "spam" },
    },
    { filter: { property: "client_email", op: "exists" }, passes: { client_email: "a@b.c" }, fails: {} },
    {
      filter: { property: "cf_do_not_mail", op: "not_exists" },
      passes: {},
      fails: { cf_do_not_mail: "yes" },
    },
    {
      filter: { property: "amount", op: "gt", value: 1000 },
      passes: { amount: "$1,500" },
      fails: { amount: "1000" },
    },
    {
      filter: { property: "amount", op: "gte", value: 1000 },
      passes: { amount: "1000" },
      fails: { amount: "999.99" },
    },
    {
      filter: { property: "amount", op: "lt", value: 500 },
      passes: { amount: "499" },
      fails: { amount: "500" },
    },
    {
      filter: { property: "amount", op: "lte", value: 500 },
      passes: { amount: "500" },
      fails: { amount: "abc" },
    },
  ];

  for (const { filter, passes, fails } of filterCases) {
    it(`applies the ${filter.op} filter: queued when it passes, filtered_out otherwise (rule 9)`, async () => {
      const { send } = await setup([{ filters: [filter] }]);
      const passing = await send({}, { ...ADDRESS, ...passes });
      assert.equal(passing.body.outcomes[0].reason, "queued", JSON.stringify(passes));
      assert.equal(passing.body.outcomes[0].matched, true);
      const failing = await send({}, { ...ADDRESS, ...fails });
      assert.equal(failing.body.outcomes[0].reason, "filtered_out", JSON.stringify(fails));
      assert.equal(failing.body.outcomes[0].matched, false);
    });
  }

  it("requires every filter to pass, and checks filters before the address", async () => {
    const { send } = await setup([
      {
        filters: [
          { property: "status", op: "eq", value: "won" },
          { property: "amount", op: "gte", value: 100 },
        ],
      },
    ]);
    assert.equal(
      (await send({}, { ...ADDRESS, status: "won", amount: "50" })).body.outcomes[0].reason,
      "filtered_out",
    );
    assert.equal((await send({}, { status: "lost" })).body.outcomes[0].reason, "filtered_out");
    assert.equal((await send({}, { status: "won", amount: "150" })).body.outcomes[0].reason, "no_address");
    assert.equal(
      (await send({}, { ...ADDRESS, status: "won", amount: "150" })).body.outcomes[0].reason,
      "queued",
    );
  });

  it("refuses a filter whose op is unknown or whose value does not fit its op, naming the mistake", async () => {
    const org = await createOrg(ctx);
    const cases: [unknown, string][] = [
      [
        { property: "status", op: "bogus" },
        "filters[0].op: must be one of eq, neq, contains, in, not_in, exists, not_exists, gt, gte, lt, lte",
      ],
      [
        { property: "status", op: "in", value: "x" },
        "filters[0].value: must be an array of strings with op in",
      ],
      [{ property: "amount", op: "gte", value: "100" }, "filters[0].value: must be a number with op gte"],
      [{ property: "status", op: "eq" }, "filters[0].value: must be a string with op eq"],
      [{ property: "status", op: "exists", value: "x" }, "filters[0].value: must not be sent with op exists"],
    ];
    for (const [filter, detail] of cases) {
      const created = await admin(ctx, "POST", `/orgs/${org.orgId}/automations`, {
        name: "Filtered",
        filters: [filter],
      });
      assert.equal(created.status, 422, JSON.stringify(filter));
      assert.deepEqual(created.body, { error: "invalid_payload", detail });
    }
    const valid = await admin(ctx, "POST", `/orgs/${org.orgId}/automations`, {
      name: "Filtered",
      filters: [{ property: "amount", op: "gte", value: 100 }],
    });
    const patched = await admin(ctx, "PATCH", `/automations/${valid.body.id}`, {
      filters: [{ property: "status", op: "in", value: "x" }],
    });
    assert.equal(patched.status, 422);
    assert.equal(patched.body.detail, "filters[0].value: must be an array of strings with op in");
  });

  it("stops at the loop guard when service_lead_id is one of the org's own leads (rule 5)", async () => {
    const { org, automations, send } = await setup([
      { name: "plain" },
      { name: "filtered", filters: [{ property: "status", op: "eq", value: "never" }] },
    ]);
    const leadId = await insertLead(ctx, org.orgId);
    const before = await countRows(ctx, org.orgId);
    const response = await send({}, { ...ADDRESS, service_lead_id: leadId });
    assert.equal(response.status, 202);
    assert.deepEqual(response.body, {
      received: true,
      duplicate: false,
      matched_automations: 2,
      outcomes: automations.map((automation) => ({
        automation_id: automation.id,
        name: automation.name,
        matched: false,
        reason: "loop_guard",
      })),
    });
    const afterCounts = await countRows(ctx, org.orgId);
    assert.equal(afterCounts.campaigns, before.campaigns);
    assert.equal(afterCounts.mail_pieces, before.mail_pieces);
  });

  it("ignores a service_lead_id that is not one of the org's leads (foreign, unknown or not an id)", async () => {
    const { send } = await setup();
    const stranger = await createOrg(ctx);
    const foreignLead = await insertLead(ctx, stranger.orgId);
    for (const serviceLeadId of [foreignLead, randomUUID(), "lead-123", ""]) {
      const response = await send({}, { ...ADDRESS, service_lead_id: serviceLeadId });
      assert.equal(response.body.outcomes[0].reason, "queued", serviceLeadId);
    }
  });

  it("reports failed when the enqueue throws, logs it to the org's webhook log, and never queues (rule 7)", async () => {
    const { org, eventType, automations, send } = await setup([{ name: "fragile" }]);
    // The outside world failing mid-enqueue: the database refuses this one piece's job.
    await ctx.database.db.execute(
      sql.raw(
        "ALTER TABLE jobs ADD CONSTRAINT events_test_refuses CHECK (payload->'piece'->>'recipient_name' IS DISTINCT FROM 'Refused By Test')",
      ),
    );
    try {
      const response = await send({ dedup_id: "will-fail" }, { ...ADDRESS, client_name: "Refused By Test" });
      assert.equal(response.status, 202);
      assert.deepEqual(response.body.outcomes, [
        { automation_id: automations[0]!.id, name: "fragile", matched: false, reason: "failed" },
      ]);
      assert.equal(response.body.duplicate, false);
      const counts = await countRows(ctx, org.orgId);
      assert.equal(counts.campaigns, 0, "the campaign insert is rolled back with its job");
      assert.equal(counts.jobs, 0);
      assert.equal(counts.mail_pieces, 0);
      // Rule 10: the event was received (202), so it is sampled, once.
      const samples = await admin(ctx, "GET", `/orgs/${org.orgId}/event-samples`);
      assert.deepEqual(
        samples.body.event_types.map((group: { event_type: string; samples: unknown[] }) => [
          group.event_type,
          group.samples.length,
        ]),
        [[eventType, 1]],
      );
      const log = await admin(ctx, "GET", `/orgs/${org.orgId}/webhook-log`);
      assert.equal(log.status, 200);
      assert.equal(log.body.webhook_log.length, 1);
      const entry = log.body.webhook_log[0];
      assert.equal(entry.source, "events");
      assert.equal(entry.level, "error");
      assert.equal(entry.automation_id, automations[0]!.id);
      assert.equal(entry.event_type, eventType);
      assert.equal(entry.dedup_id, "will-fail");
      assert.equal(entry.at, NOW.replace("Z", ".000Z"));
      assert.match(entry.message, /enqueue failed/);
    } finally {
      await ctx.database.db.execute(sql.raw("ALTER TABLE jobs DROP CONSTRAINT events_test_refuses"));
    }
    // The failed attempt left no dedup record: the retry queues.
    const retry = await send({ dedup_id: "will-fail" }, { ...ADDRESS, client_name: "Refused By Test" });
    assert.equal(retry.body.outcomes[0].reason, "queued");
  });

  it("creates the custom connection on the first valid live event only", async () => {
    const { org, send } = await setup([]);
    const connections = () => admin(ctx, "GET", `/orgs/${org.orgId}/connections`);
    assert.deepEqual((await connections()).body, { connections: [] });
    await send({ dry_run: true });
    await send({ event_type: "Bad" });
    assert.deepEqual((await connections()).body, { connections: [] });
    clock.set("2026-11-22T12:00:20Z");
    await send();
    clock.set("2026-11-22T12:00:30Z");
    await send();
    clock.set(NOW);
    assert.deepEqual((await connections()).body, {
      connections: [{ provider: "custom", created_at: "2026-11-22T12:00:20.000Z" }],
    });
  });

  it("keeps a rolling sample of the 25 newest live events per event type, bound or not (rule 10)", async () => {
    const { org, eventType, send } = await setup([]);
    const start = Date.parse(NOW);
    for (let i = 0; i < 27; i++) {
      clock.set(new Date(start + i * 1000));
      const response = await send({ dedup_id: `e-${i}` }, { cf_seq: String(i) });
      assert.equal(response.status, 202);
    }
    clock.set(new Date(start + 60_000));
    await send({ dry_run: true, dedup_id: "dry" });
    await sendEvent(ctx, org.key, envelope({ event_type: "deal.won", dedup_id: "other-type" }));
    clock.set(NOW);

    const response = await admin(ctx, "GET", `/orgs/${org.orgId}/event-samples`);
    assert.equal(response.status, 200);
    const groups = response.body.event_types;
    assert.deepEqual(
      groups.map((group: any) => group.event_type),
      ["deal.won", eventType],
    );
    const samples = groups[1];
    assert.equal(samples.last_seen_at, new Date(start + 26_000).toISOString());
    assert.equal(samples.samples.length, 25);
    assert.deepEqual(
      samples.samples.map((sample: any) => sample.dedup_id),
      Array.from({ length: 25 }, (_, i) => `e-${26 - i}`),
    );
    assert.deepEqual(samples.samples[0], {
      event_type: eventType,
      object_type: "job",
      dedup_id: "e-26",
      occurred_at: null,
      record: { id: samples.samples[0].record.id, properties: { cf_seq: "26" } },
    });
  });

  it("writes the samples still buffered when the server shuts down", async () => {
    const own = await createTestContext({ clock });
    try {
      const org = await createOrg(own);
      const response = await sendEvent(
        own,
        org.key,
        envelope({ event_type: "job.closing", dedup_id: "last" }),
      );
      assert.equal(response.status, 202);
      await own.app.close();
      const rows = await own.database.db.execute(
        sql`SELECT envelope->>'dedup_id' AS dedup_id FROM event_samples WHERE org_id = ${org.orgId}`,
      );
      assert.deepEqual((rows as unknown as { rows: unknown[] }).rows, [{ dedup_id: "last" }]);
    } finally {
      await own.close();
    }
  });

  it("answers a dry run with the outcomes a live call would give, echoes dry_run, and writes nothing (rule 11)", async () => {
    const { org, automations, send } = await setup([
      { name: "would queue" },
      { name: "would filter", filters: [{ property: "status", op: "eq", value: "won" }] },
    ]);
    await send({ dedup_id: "seen" });
    const before = await countRows(ctx, org.orgId);

    const fresh = await send({ dry_run: true, dedup_id: "fresh" });
    assert.equal(fresh.status, 202);
    assert.deepEqual(fresh.body, {
      received: true,
      duplicate: false,
      dry_run: true,
      matched_automations: 2,
      outcomes: [
        { automation_id: automations[0]!.id, name: "would queue", matched: true, reason: "queued" },
        { automation_id: automations[1]!.id, name: "would filter", matched: false, reason: "filtered_out" },
      ],
    });
    const replay = await send({ dry_run: true, dedup_id: "seen" });
    assert.equal(replay.body.outcomes[0].reason, "duplicate");
    const noAddress = await send({ dry_run: true }, { street: "12 Oak Lane" });
    assert.equal(noAddress.body.outcomes[0].reason, "no_address");
    const leadId = await insertLead(ctx, org.orgId);
    const guarded = await send({ dry_run: true }, { ...ADDRESS, service_lead_id: leadId });
    assert.deepEqual(
      guarded.body.outcomes.map((outcome: any) => outcome.reason),
      ["loop_guard", "loop_guard"],
    );

    assert.deepEqual(await countRows(ctx, org.orgId), before);
    // The live call the dry run predicted.
    const live = await send({ dedup_id: "fresh" });
    assert.equal(live.body.dry_run, undefined);
    assert.deepEqual(
      live.body.outcomes.map((outcome: any) => outcome.reason),
      fresh.body.outcomes.map((outcome: any) => outcome.reason),
    );
  });

  it("writes nothing at all for a dry run of an org's first event", async () => {
    const { org, send } = await setup();
    const response = await send({ dry_run: true });
    assert.equal(response.body.outcomes[0].reason, "queued");
    assert.deepEqual(await countRows(ctx, org.orgId), NOTHING_WRITTEN);
    assert.deepEqual((await admin(ctx, "GET", `/orgs/${org.orgId}/event-samples`)).body, { event_types: [] });
  });

  it("answers 404 on the operator views for an unknown organization", async () => {
    for (const view of ["event-samples", "webhook-log", "connections"]) {
      const response = await admin(ctx, "GET", `/orgs/${randomUUID()}/${view}`);
      assert.equal(response.status, 404, view);
    }
  });
});
