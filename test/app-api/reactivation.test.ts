import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { queryRows, sql } from "../../src/db/database.ts";
import { createLocalGeocoder } from "../../src/geo/local.ts";
import { call, createOrg, recordMailing } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { runPipeline, tempDataDir } from "../pipeline/helpers.ts";
import { inviteAndAccept, type SignedInUser } from "./helpers.ts";

const TEMPLATE = {
  headline: "Time for a check-up, {{client_name}}?",
  message: "It has been a while since {{street}}.",
};

describe(`app API: reactivation mailings from past jobs (${databaseLabel})`, () => {
  let ctx: TestContext;
  let org: { orgId: string; key: string };
  let owner: SignedInUser;
  let member: SignedInUser;
  let otherOwner: SignedInUser;
  let importId: string;
  let uploadId: string;

  before(async () => {
    // The outside geocoder, faked: it places a bare town at its ZIP, as real ones do; the offline one finds nothing.
    const local = createLocalGeocoder();
    const townLevel = async (address: string) =>
      address === "Springfield, IL 62704"
        ? ({
            found: true,
            lat: 39.77,
            lng: -89.68,
            precision: "postcode",
            parts: { street: "", city: "SPRINGFIELD", state: "IL", zip: "62704", country: "US" },
          } as const)
        : local.geocode(address);
    const geocoder = {
      provider: "fake",
      geocode: townLevel,
      geocodeMany: (addresses: readonly string[]) => Promise.all(addresses.map(townLevel)),
    };
    ctx = await createTestContext({ memoryLimiter: true, geocoder, config: { dataDir: tempDataDir() } });
    org = await createOrg(ctx);
    owner = await inviteAndAccept(ctx, org.orgId, "owner-reactivation@example.com", "owner");
    member = await inviteAndAccept(ctx, org.orgId, "member-reactivation@example.com", "member");
    const other = await createOrg(ctx);
    otherOwner = await inviteAndAccept(ctx, other.orgId, "other-reactivation@example.com", "owner");
    const staged = await call(ctx, "POST", "/api/v1/import/jobs", {
      key: org.key,
      body: {
        source: "jobs",
        rows: [
          {
            address: "101 Maple Ave, Springfield, IL 62704",
            customer_name: "Ann Lee",
            completed_at: "2023-05-01",
          },
          {
            address: "103 Maple Ave, Springfield, IL 62704",
            customer_name: "Bo Chen",
            completed_at: "2023-06-01",
          },
          {
            address: "105 Maple Ave, Springfield, IL 62704",
            customer_name: "Cy Diaz",
            completed_at: "2023-07-01",
          },
          { address: "Springfield, IL 62704", customer_name: "No Street", completed_at: "2023-07-02" },
          {
            address: "107 Maple Ave, Springfield, IL 62704",
            customer_name: "Recent Job",
            completed_at: "2025-01-10",
          },
        ],
      },
    });
    assert.equal(staged.status, 201, staged.text);
    importId = staged.body.import_id;
    // Bo Chen's home became a customer since: it must not be mailed.
    const customer = await call(ctx, "POST", "/api/v1/customers/webhook", {
      key: org.key,
      body: { address: "103 Maple Avenue, Springfield, IL 62704" },
    });
    assert.equal(customer.status, 200, customer.text);
  });
  after(() => ctx.close());

  /** Runs the pipeline, then the app's pieces of this mailing. */
  const mailedPieces = async (campaignName: string) => {
    await runPipeline(ctx, { dataDir: tempDataDir(), printProvider: "local" });
    const pieces = await owner.browser.request("GET", "/app/api/v1/pieces");
    return pieces.body.pieces.filter(
      (piece: { campaign_name: string }) => piece.campaign_name === campaignName,
    ) as { id: string; address: string; status: string }[];
  };

  const selection = () => ({ import_ids: [importId], filter: { completed_before: "2024-01-01" } });

  test("the preview counts the rows a filter matches, the suppressed customers and the unmailable rows", async () => {
    const preview = await member.browser.request("POST", "/app/api/v1/reactivation/preview", {
      body: selection(),
    });
    assert.equal(preview.status, 200, preview.text);
    assert.equal(preview.body.matched, 4, "the job of 2025 is after the date");
    assert.equal(preview.body.mailable, 2);
    assert.deepEqual(preview.body.excluded, {
      customer: 1,
      opted_out: 0,
      no_mailable_address: 1,
      undeliverable: 0,
      duplicate: 0,
    });
    const reasons = preview.body.excluded_examples.map((e: { customer_name: string; reason: string }) => [
      e.customer_name,
      e.reason,
    ]);
    assert.deepEqual(reasons, [
      ["Bo Chen", "customer"],
      ["No Street", "no_mailable_address"],
    ]);
    const byName = await member.browser.request("POST", "/app/api/v1/reactivation/preview", {
      body: { import_ids: [importId], filter: { match: [{ field: "customer_name", contains: "cy" }] } },
    });
    assert.equal(byName.body.mailable, 1);
    assert.equal(byName.body.first_rows[0].customer_name, "Cy Diaz");
  });

  test("a proof of the first card is drawn from the first mailable home", async () => {
    const proof = await member.browser.request("POST", "/app/api/v1/reactivation/proof", {
      body: { ...selection(), template: TEMPLATE },
    });
    assert.equal(proof.status, 200, proof.text);
    assert.match(proof.body.front_png, /^data:image\/png;base64,/);
    const badField = await member.browser.request("POST", "/app/api/v1/reactivation/proof", {
      body: { ...selection(), template: { headline: "Hi {{nickname}}" } },
    });
    assert.equal(badField.status, 422);
    assert.ok(badField.body.error.details.fields["template.headline"]);
  });

  test("a member cannot send; an owner's mailing queues one card per mailable home, never to the customer", async () => {
    const refused = await member.browser.request("POST", "/app/api/v1/reactivation/mailings", {
      body: { ...selection(), template: TEMPLATE, name: "Spring check-up", confirmed_cards: 2 },
    });
    assert.equal(refused.status, 403, refused.text);
    const sent = await owner.browser.request("POST", "/app/api/v1/reactivation/mailings", {
      body: { ...selection(), template: TEMPLATE, name: "Spring check-up", confirmed_cards: 2 },
    });
    assert.equal(sent.status, 201, sent.text);
    assert.equal(sent.body.queued, 2);
    assert.equal(sent.body.summary.excluded.customer, 1);

    const mailing = await mailedPieces("Spring check-up");
    assert.deepEqual(mailing.map((piece: { address: string }) => piece.address).sort(), [
      "101 Maple Ave, Springfield, IL 62704",
      "105 Maple Ave, Springfield, IL 62704",
    ]);
    for (const piece of mailing) assert.equal(piece.status, "mailed", JSON.stringify(piece));
    const rows = await queryRows<{ template: unknown; origin: string }>(
      ctx.database.db,
      sql`SELECT template, origin FROM campaigns WHERE id = ${sent.body.campaign_id}`,
    );
    assert.equal(rows[0]!.origin, "reactivation");
    const detail = await owner.browser.request("GET", `/app/api/v1/pieces/${mailing[0]!.id}`);
    assert.match(detail.body.landing_url, /\/l\//, "each card has its landing page");
    const revenue = await owner.browser.request("GET", "/app/api/v1/revenue");
    const reactivation = revenue.body.by_automation.find(
      (row: { automation_name: string }) => row.automation_name === "Spring check-up",
    );
    assert.equal(reactivation?.cards_mailed, 2, JSON.stringify(revenue.body.by_automation));
    assert.equal(reactivation.automation_id, null);
    assert.equal(reactivation.campaign_id, sent.body.campaign_id, "Revenue's row is the mailing's own");
    const safety = (await owner.browser.request("GET", "/app/api/v1/mail-safety")).body;
    assert.equal(safety.mailings.cards, 2, "the mailing's cards, counted at the organization only");
    const automationCards = safety.automations.reduce(
      (sum: number, row: { cards: number }) => sum + row.cards,
      0,
    );
    assert.equal(safety.organization.cards, automationCards + safety.mailings.cards, "the boxes add up");
    const automationCents = safety.automations.reduce(
      (sum: number, row: { cents: number }) => sum + row.cents,
      0,
    );
    assert.equal(safety.organization.cents, automationCents + safety.mailings.cents);
  });

  test("Mail's filter for reactivation mailings lists their cards, and no card of other mail", async () => {
    const recorded = await recordMailing(
      ctx,
      org.orgId,
      [{ address: "9 Oak St, Springfield, IL 62704", mailed_at: "2026-01-15T10:00:00Z" }],
      "Recorded by the operator",
    );
    const everything = await owner.browser.request("GET", "/app/api/v1/pieces");
    assert.ok(
      everything.body.pieces.some((piece: { id: string }) => piece.id === recorded.pieces[0]!.id),
      "the recorded card is in the unfiltered list",
    );
    const filtered = await owner.browser.request("GET", "/app/api/v1/pieces?mailing=reactivation");
    assert.equal(filtered.status, 200, filtered.text);
    const sent = await queryRows<{ id: string }>(
      ctx.database.db,
      sql`SELECT p.id FROM mail_pieces p JOIN campaigns c ON c.id = p.campaign_id
          WHERE p.org_id = ${org.orgId}::uuid AND c.origin = 'reactivation'`,
    );
    assert.ok(sent.length >= 2, "the mailing sent above has cards");
    assert.deepEqual(
      filtered.body.pieces.map((piece: { id: string }) => piece.id).sort(),
      sent.map((piece) => piece.id).sort(),
    );
    for (const piece of filtered.body.pieces) {
      assert.equal(piece.automation_id, null);
      assert.equal(piece.campaign_name, "Spring check-up");
    }
    const bad = await owner.browser.request("GET", "/app/api/v1/pieces?mailing=recorded");
    assert.equal(bad.status, 422, bad.text);
  });

  test("a send needs the count the owner confirmed; the preview gives the count's cost and the hold window", async () => {
    const costSet = await owner.browser.request("PATCH", "/app/api/v1/organization", {
      body: { cost_per_card_cents: 85 },
    });
    assert.ok(costSet.status === 200, costSet.text);
    const preview = await member.browser.request("POST", "/app/api/v1/reactivation/preview", {
      body: selection(),
    });
    assert.equal(preview.body.mailable, 2);
    assert.equal(preview.body.estimated_cost_cents, 170);
    assert.equal(preview.body.hold_minutes, 0);
    const unconfirmed = await owner.browser.request("POST", "/app/api/v1/reactivation/mailings", {
      body: { ...selection(), template: TEMPLATE, name: "Unconfirmed" },
    });
    assert.equal(unconfirmed.status, 422, unconfirmed.text);
    const stale = await owner.browser.request("POST", "/app/api/v1/reactivation/mailings", {
      body: { ...selection(), template: TEMPLATE, name: "Stale", confirmed_cards: 3 },
    });
    assert.equal(stale.status, 409, stale.text);
    assert.equal(stale.body.error.code, "confirmation_stale");
    assert.match(stale.body.error.message, /now reaches 2 homes, not the 3 confirmed/);
    const made = await queryRows<{ name: string }>(
      ctx.database.db,
      sql`SELECT name FROM campaigns WHERE name IN ('Unconfirmed', 'Stale')`,
    );
    assert.deepEqual(made, [], "nothing is mailed without the confirmed count");
  });

  test("the organization's hold window for mailings holds a mailing's cards, and each can be cancelled", async () => {
    // The homes got the previous test's mailing: lift the frequency cap so the hold is what decides.
    const before = await owner.browser.request("GET", "/app/api/v1/mail-safety");
    const hold = await owner.browser.request("PATCH", "/app/api/v1/mail-safety", {
      body: { mailing_hold_minutes: 90, frequency_cap_days: 0 },
    });
    assert.equal(hold.status, 200, hold.text);
    assert.equal(hold.body.mailing_hold_minutes, 90);
    const preview = await member.browser.request("POST", "/app/api/v1/reactivation/preview", {
      body: selection(),
    });
    assert.equal(preview.body.hold_minutes, 90);
    const sent = await owner.browser.request("POST", "/app/api/v1/reactivation/mailings", {
      body: { ...selection(), template: TEMPLATE, name: "Held mailing", confirmed_cards: 2 },
    });
    assert.equal(sent.status, 201, sent.text);
    const pieces = await mailedPieces("Held mailing");
    assert.deepEqual(
      pieces.map((piece) => piece.status),
      ["held", "held"],
    );
    const listed = await owner.browser.request("GET", `/app/api/v1/pieces/${pieces[0]!.id}`);
    assert.match(
      listed.body.status_reason,
      /^Held for the organization's mailing 1 h 30 min hold window, until /,
    );
    const cancel = await member.browser.request("POST", `/app/api/v1/pieces/${pieces[0]!.id}/cancel`);
    assert.equal(cancel.status, 200, cancel.text);
    assert.equal(cancel.body.status, "cancelled");
    const reset = await owner.browser.request("PATCH", "/app/api/v1/mail-safety", {
      body: { mailing_hold_minutes: 0, frequency_cap_days: before.body.frequency_cap_days },
    });
    assert.equal(reset.status, 200, reset.text);
  });

  test("a CSV with a job type column is staged as an app upload; API batches keep origin api and no job type", async () => {
    const file = [
      "Street,City,State,ZIP,Client,Job Type",
      "201 Oak St,Springfield,IL,62704,Di Eng,Furnace install",
      '203 Oak St,Springfield,IL,62704,Ed Fox," furnace INSTALL "',
      "205 Oak St,Springfield,IL,62704,Flo Gil,AC repair",
      "207 Oak St,Springfield,IL,62704,Gus Ho,",
    ].join("\r\n");
    const csv = { headers: { "content-type": "text/csv" } };
    const preview = await member.browser.request("POST", "/app/api/v1/uploads/preview?purpose=jobs", {
      payload: file,
      ...csv,
    });
    assert.equal(preview.status, 200, preview.text);
    assert.equal(preview.body.mapping.job_type, "Job Type", "guessed from the header");
    const mapping = "street=Street&city=City&state=State&zip=ZIP&customer_name=Client&job_type=Job%20Type";
    const staged = await member.browser.request("POST", `/app/api/v1/imports/upload?${mapping}`, {
      payload: file,
      ...csv,
    });
    assert.equal(staged.status, 201, staged.text);
    assert.equal(staged.body.staged, 4);
    uploadId = staged.body.import_id;

    const list = await member.browser.request("GET", "/app/api/v1/imports");
    const origins = Object.fromEntries(
      list.body.imports.map((batch: { id: string; origin: string }) => [batch.id, batch.origin]),
    );
    assert.equal(origins[uploadId], "app_upload");
    assert.equal(origins[importId], "api");
    const batch = await member.browser.request("GET", `/app/api/v1/imports/${uploadId}`);
    assert.equal(batch.body.origin, "app_upload");
    assert.deepEqual(
      batch.body.rows.map((row: { job_type: string | null }) => row.job_type),
      ["Furnace install", "furnace INSTALL", "AC repair", null],
    );
    const apiBatch = await member.browser.request("GET", `/app/api/v1/imports/${importId}`);
    assert.equal(apiBatch.body.origin, "api");
    assert.ok(apiBatch.body.rows.every((row: { job_type: string | null }) => row.job_type === null));

    const tooLong = await member.browser.request("POST", `/app/api/v1/imports/upload?${mapping}`, {
      payload: `Street,City,State,ZIP,Client,Job Type\r\n1 Elm St,Springfield,IL,62704,Al,${"x".repeat(201)}\r\n2 Elm St,Springfield,IL,62704,Bo,Roof\r\n`,
      ...csv,
    });
    assert.equal(tooLong.status, 422, tooLong.text);
    assert.deepEqual(tooLong.body.error.details.rows, [
      { line: 2, message: "job_type: longer than 200 characters" },
    ]);
  });

  test("the job types of the chosen batches are listed with their counts", async () => {
    const listed = await member.browser.request(
      "GET",
      `/app/api/v1/imports/job-types?import_ids=${uploadId},${importId}`,
    );
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body, {
      job_types: [
        { job_type: "Furnace install", rows: 2 },
        { job_type: "AC repair", rows: 1 },
      ],
      without_job_type: 6,
    });
    const foreign = await otherOwner.browser.request(
      "GET",
      `/app/api/v1/imports/job-types?import_ids=${uploadId}`,
    );
    assert.equal(foreign.status, 404);
    const bad = await member.browser.request("GET", "/app/api/v1/imports/job-types?import_ids=nope");
    assert.equal(bad.status, 422, bad.text);
    assert.ok(bad.body.error.details.fields.import_ids);
  });

  test("a mailing filtered by job type reaches only those rows, in any case", async () => {
    const byType = { import_ids: [uploadId, importId], filter: { job_types: ["  FURNACE install "] } };
    const preview = await member.browser.request("POST", "/app/api/v1/reactivation/preview", {
      body: byType,
    });
    assert.equal(preview.status, 200, preview.text);
    assert.equal(preview.body.matched, 2);
    assert.deepEqual(
      preview.body.first_rows.map((row: { customer_name: string; job_type: string }) => [
        row.customer_name,
        row.job_type,
      ]),
      [
        ["Di Eng", "Furnace install"],
        ["Ed Fox", "furnace INSTALL"],
      ],
    );
    const contains = await member.browser.request("POST", "/app/api/v1/reactivation/preview", {
      body: { import_ids: [uploadId], filter: { match: [{ field: "job_type", contains: "REPAIR" }] } },
    });
    assert.deepEqual(
      contains.body.first_rows.map((row: { customer_name: string }) => row.customer_name),
      ["Flo Gil"],
    );

    const sent = await owner.browser.request("POST", "/app/api/v1/reactivation/mailings", {
      body: { ...byType, template: TEMPLATE, name: "Furnace tune-up", confirmed_cards: 2 },
    });
    assert.equal(sent.status, 201, sent.text);
    assert.equal(sent.body.queued, 2);
    const recorded = await queryRows<{ filter: { job_types: string[] } }>(
      ctx.database.db,
      sql`SELECT filter FROM reactivation_mailings WHERE campaign_id = ${sent.body.campaign_id}`,
    );
    assert.deepEqual(recorded[0]!.filter.job_types, ["  FURNACE install "]);
    const mailing = await mailedPieces("Furnace tune-up");
    assert.deepEqual(mailing.map((piece: { address: string }) => piece.address).sort(), [
      "201 Oak St, Springfield, IL 62704",
      "203 Oak St, Springfield, IL 62704",
    ]);
  });

  test("job_types: at most 50 entries of 1 to 200 characters, refused with the field named", async () => {
    const refused = async (jobTypes: string[]) => {
      const response = await member.browser.request("POST", "/app/api/v1/reactivation/preview", {
        body: { import_ids: [uploadId], filter: { job_types: jobTypes } },
      });
      assert.equal(response.status, 422, response.text);
      assert.equal(response.body.error.code, "invalid_payload");
      return response.body.error.details.fields as Record<string, string>;
    };
    const tooMany = await refused(Array.from({ length: 51 }, (_, n) => `type ${n}`));
    assert.match(tooMany["filter.job_types"]!, /50/);
    const tooLong = await refused(["ok", "x".repeat(201)]);
    assert.match(tooLong["filter.job_types[1]"]!, /200/);
    const blank = await refused([" "]);
    assert.ok(blank["filter.job_types[0]"]);
    const send = await owner.browser.request("POST", "/app/api/v1/reactivation/mailings", {
      body: {
        import_ids: [uploadId],
        filter: { job_types: [""] },
        template: TEMPLATE,
        name: "Empty",
        confirmed_cards: 1,
      },
    });
    assert.equal(send.status, 422, send.text);
    assert.ok(send.body.error.details.fields["filter.job_types[0]"]);
  });

  test("a send repeating its request id mails nothing twice, also when the repeats arrive at once", async () => {
    const send = (name: string, requestId: string) =>
      owner.browser.request("POST", "/app/api/v1/reactivation/mailings", {
        body: { ...selection(), template: TEMPLATE, name, request_id: requestId, confirmed_cards: 2 },
      });
    const once = randomUUID();
    const first = await send("Once only", once);
    assert.equal(first.status, 201, first.text);
    const again = await send("Once only", once);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.campaign_id, first.body.campaign_id);
    assert.equal(again.body.queued, first.body.queued);

    const racing = randomUUID();
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => send("At once", racing)));
    assert.deepEqual(
      answers.map((answer) => answer.status).sort(),
      [200, 200, 200, 200, 201],
      answers.map((answer) => answer.text).join("\n"),
    );
    assert.equal(new Set(answers.map((answer) => answer.body.campaign_id)).size, 1);
    const campaigns = await queryRows<{ name: string; count: string | number }>(
      ctx.database.db,
      sql`SELECT name, count(*) AS count FROM campaigns
          WHERE origin = 'reactivation' AND name IN ('Once only', 'At once') GROUP BY name ORDER BY name`,
    );
    assert.deepEqual(
      campaigns.map((row) => [row.name, Number(row.count)]),
      [
        ["At once", 1],
        ["Once only", 1],
      ],
    );
  });

  test("another organization's batch answers 404", async () => {
    const foreign = await otherOwner.browser.request("POST", "/app/api/v1/reactivation/preview", {
      body: selection(),
    });
    assert.equal(foreign.status, 404, foreign.text);
    const send = await otherOwner.browser.request("POST", "/app/api/v1/reactivation/mailings", {
      body: { ...selection(), template: TEMPLATE, name: "Theirs", confirmed_cards: 2 },
    });
    assert.equal(send.status, 404);
  });

  test("a card whose address fails the check made stricter after the send stops before print, its reason in words", async () => {
    // The preview leaves out what the check refuses now; the organization can make it stricter before print.
    const staged = await call(ctx, "POST", "/api/v1/import/jobs", {
      key: org.key,
      body: {
        source: "jobs",
        rows: [{ address: "12 Main St, Austin, TX", customer_name: "No Zip", completed_at: "2022-02-01" }],
      },
    });
    assert.equal(staged.status, 201, staged.text);
    const chosen = { import_ids: [staged.body.import_id], filter: {} };
    const preview = await owner.browser.request("POST", "/app/api/v1/reactivation/preview", { body: chosen });
    assert.equal(preview.status, 200, preview.text);
    assert.equal(preview.body.mailable, 1, "a city and state pass the normal check");
    const sent = await owner.browser.request("POST", "/app/api/v1/reactivation/mailings", {
      body: {
        ...chosen,
        template: TEMPLATE,
        name: "No ZIP mailing",
        confirmed_cards: preview.body.mailable,
      },
    });
    assert.equal(sent.status, 201, sent.text);
    const strict = await owner.browser.request("PATCH", "/app/api/v1/mail-safety", {
      body: { address_verification: "strict" },
    });
    assert.equal(strict.status, 200, strict.text);
    const pieces = await mailedPieces("No ZIP mailing");
    assert.equal(pieces.length, 1);
    assert.equal(pieces[0]!.status, "undeliverable");
    const page = await owner.browser.request("GET", `/app/api/v1/pieces/${pieces[0]!.id}`);
    assert.equal(page.body.status_reason, "The address has no ZIP");
  });
});
