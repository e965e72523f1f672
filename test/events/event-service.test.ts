import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import { createBoundAutomationCache } from "../../src/automations/automation-cache.ts";
import { createAutomation } from "../../src/automations/automations.ts";
import { createKillSwitch } from "../../src/automations/kill-switch.ts";
import { fixedClock } from "../../src/clock.ts";
import { type Database, queryOne, sql } from "../../src/db/database.ts";
import { createOrganization } from "../../src/orgs/organizations.ts";
import type { EventEnvelope } from "../../src/trigger/envelope.ts";
import {
  type ContactAttributionInput,
  createEventService,
  type EventServiceDeps,
} from "../../src/trigger/event-service.ts";
import { createTriggerStore } from "../../src/trigger/trigger-store.ts";
import { listWebhookLog } from "../../src/trigger/webhook-log.ts";
import { databaseLabel, openTestDatabase } from "../helpers/harness.ts";
import { ADDRESS } from "./helpers.ts";

const contactEvent = (overrides: Partial<EventEnvelope> = {}, properties: Record<string, string> = {}) =>
  ({
    event_type: "contact.created",
    object_type: "contact",
    dedup_id: `c-${Math.random()}`,
    occurred_at: "2026-11-20T09:30:00Z",
    record: {
      id: "crm-contact-77",
      properties: { ...ADDRESS, client_name: "Jane Q Doe", client_email: "jane@example.com", ...properties },
    },
    ...overrides,
  }) as EventEnvelope;

describe(`event service: contact attribution hook (${databaseLabel})`, () => {
  let database: Database;
  let drop: () => Promise<void>;
  let orgId: string;
  const clock = fixedClock("2026-11-22T12:00:10Z");
  const calls: { orgId: string; input: ContactAttributionInput; campaignsAtCall: number }[] = [];

  const campaignCount = async () =>
    Number(
      (
        await queryOne<{ n: string }>(
          database.db,
          sql`SELECT count(*) AS n FROM campaigns WHERE org_id = ${orgId}`,
        )
      )?.n,
    );

  const service = (attributeContact: EventServiceDeps["attributeContact"]) =>
    createEventService({
      db: database.db,
      clock,
      logger: pino({ level: "silent" }),
      killSwitch: createKillSwitch({ db: database.db, clock }),
      boundAutomations: createBoundAutomationCache({ db: database.db, clock }),
      triggerStore: createTriggerStore({ database, logger: pino({ level: "silent" }) }),
      attributeContact,
    });

  let recording: ReturnType<typeof service>;

  before(async () => {
    ({ database, drop } = await openTestDatabase());
    recording = service(async (calledFor, input) => {
      calls.push({ orgId: calledFor, input, campaignsAtCall: await campaignCount() });
    });
    orgId = (await createOrganization(database.db, { name: "Attribution Co" })).org_id;
    await createAutomation(database.db, orgId, {
      name: "welcome",
      trigger: { type: "custom_api", event_type: "contact.created" },
    });
  });
  after(async () => drop());

  it("attributes a live contact event with an address and an email, after the enqueue", async () => {
    calls.length = 0;
    const result = await recording.ingest(orgId, contactEvent());
    assert.equal(result.outcomes[0]?.reason, "queued");
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.orgId, orgId);
    assert.equal(calls[0]!.campaignsAtCall, await campaignCount(), "the campaign already exists");
    assert.deepEqual(calls[0]!.input, {
      address: "12 Oak Lane, Austin, TX 78701",
      email: "jane@example.com",
      first_name: "Jane",
      last_name: "Q Doe",
      crm_record_id: "crm-contact-77",
      created_at: "2026-11-20T09:30:00Z",
    });
  });

  it("attributes with a phone alone, and whatever the candidates' outcomes (even none)", async () => {
    calls.length = 0;
    await recording.ingest(
      orgId,
      contactEvent({ event_type: "contact.unbound" }, { client_email: "", client_phone: "512-555-0100" }),
    );
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.input.phone, "512-555-0100");
    assert.equal(calls[0]!.input.email, undefined);
  });

  it("does not attribute dry runs, non-contact events, or contacts without an address or a way to reach them", async () => {
    calls.length = 0;
    await recording.ingest(orgId, contactEvent({ dry_run: true }));
    await recording.ingest(orgId, contactEvent({ object_type: "deal" }));
    await recording.ingest(orgId, contactEvent({ object_type: "job" }));
    await recording.ingest(orgId, contactEvent({}, { client_email: "", client_phone: "  " }));
    await recording.ingest(orgId, contactEvent({}, { street: "" }));
    await recording.ingest(orgId, contactEvent({}, { city: "", zip: "" }));
    assert.equal(calls.length, 0);
  });

  it("logs a failed attribution to the webhook log and still answers the event", async () => {
    const failing = service(async () => {
      throw new Error("attribution exploded");
    });
    const result = await failing.ingest(orgId, contactEvent({ dedup_id: "attr-fail" }));
    assert.equal(result.outcomes[0]?.reason, "queued");
    const [entry] = await listWebhookLog(database.db, orgId, 10);
    assert.equal(entry?.level, "warn");
    assert.equal(entry?.source, "events");
    assert.equal(entry?.dedup_id, "attr-fail");
    assert.equal(entry?.event_type, "contact.created");
    assert.match(entry?.message ?? "", /attribution failed/);
  });
});
