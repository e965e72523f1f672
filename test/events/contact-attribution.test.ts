import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { queryRows, sql } from "../../src/db/database.ts";
import { createOrg, recordMailing } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { envelope, sendEvent } from "./helpers.ts";

const MAILED = "77 Birch Road, Austin, TX 78701";
const CONTACT = { street: "77 Birch Rd", city: "Austin", state: "TX", zip: "78701" };

async function syncedLeads(ctx: TestContext, orgId: string) {
  return queryRows<{ email: string; campaign_id: string; crm_record_id: string }>(
    ctx.database.db,
    sql`SELECT email, campaign_id, crm_record_id FROM leads WHERE org_id = ${orgId} AND source = 'crm_sync'`,
  );
}

describe(`contact events go through indirect attribution (${databaseLabel})`, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(async () => ctx.close());

  it("records a crm_sync lead against the mailed campaign for a live contact event with an address and an email", async () => {
    const org = await createOrg(ctx);
    const mailing = await recordMailing(ctx, org.orgId, [{ address: MAILED }]);
    const response = await sendEvent(
      ctx,
      org.key,
      envelope({
        object_type: "contact",
        event_type: "contact.created",
        record: {
          id: "crm-42",
          properties: { ...CONTACT, client_email: "pat@example.com", client_name: "Pat Lee" },
        },
      }),
    );
    assert.equal(response.status, 202, response.text);
    assert.deepEqual(await syncedLeads(ctx, org.orgId), [
      { email: "pat@example.com", campaign_id: mailing.campaign_id, crm_record_id: "crm-42" },
    ]);
  });

  it("does nothing on a dry run, without an email or phone, or for a job event", async () => {
    const org = await createOrg(ctx);
    await recordMailing(ctx, org.orgId, [{ address: MAILED }]);
    const withEmail = { ...CONTACT, client_email: "sam@example.com" };
    const cases = [
      envelope({ object_type: "contact", dry_run: true, record: { id: "a", properties: withEmail } }),
      envelope({ object_type: "contact", record: { id: "b", properties: CONTACT } }),
      envelope({ object_type: "job", record: { id: "c", properties: withEmail } }),
    ];
    for (const body of cases) assert.equal((await sendEvent(ctx, org.key, body)).status, 202);
    assert.deepEqual(await syncedLeads(ctx, org.orgId), []);
  });
});
