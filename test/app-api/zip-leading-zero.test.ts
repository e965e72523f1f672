import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { queryRows, sql } from "../../src/db/database.ts";
import { call, createAutomation, createOrg } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { EVENT_TYPE, pieceRow, queuePiece, runPipeline, tempDataDir } from "../pipeline/helpers.ts";
import { createAppTestContext, inviteAndAccept, type SignedInUser } from "./helpers.ts";

const csv = (lines: string[]) => `${lines.join("\r\n")}\r\n`;
const upload = (user: SignedInUser, url: string, body: string) =>
  user.browser.request("POST", url, { payload: body, headers: { "content-type": "text/csv" } });
const MAPPING = "street=Street&city=City&state=State&zip=Zip";

/**
 * Excel reads a ZIP column as numbers and writes Cambridge's 02139 as 2139: an upload reads such a
 * ZIP with its leading 0 put back when it is a ZIP of the row's state, says how many it did, and
 * refuses on its row any other cell that is no ZIP. The home is then the same home a card goes to.
 */
describe(`CSV uploads: a ZIP that lost its leading 0 in a spreadsheet (${databaseLabel})`, () => {
  let ctx: TestContext;
  let org: { orgId: string; key: string };
  let owner: SignedInUser;

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
    org = await createOrg(ctx);
    owner = await inviteAndAccept(ctx, org.orgId, "owner-zips@example.com", "owner");
    await createAutomation(ctx, org.orgId, {
      name: "Completed jobs",
      trigger: { type: "custom_api", event_type: EVENT_TYPE },
    });
  });
  after(() => ctx.close());

  test("customers: 4- and 3-digit ZIPs are stored with 5 digits, counted, and suppress the cards to those homes", async () => {
    const file = csv([
      "Street,City,State,Zip",
      "12 Oak St,Cambridge,MA,2139",
      "30 Elm St,,MA,2139",
      "5 Main St,Newark,NJ,7102",
      "8 Calle Sol,Adjuntas,PR,601",
      "9 Pine Rd,Springfield,IL,62704",
      "1 Birch Rd,Springfield,IL,2134",
      "2 Birch Rd,Cambridge,MA,MA 02139",
    ]);
    const refused = await upload(owner, `/app/api/v1/customers/upload?${MAPPING}`, file);
    assert.equal(refused.status, 422, refused.text);
    assert.deepEqual(refused.body.error.details.rows, [
      {
        line: 7,
        message:
          'zip: ZIP "2134" is not in IL: read with its leading 0 put back, it is 02134, in Allston, MA. Write the row\'s 5-digit ZIP.',
      },
      {
        line: 8,
        message:
          'zip: ZIP "MA 02139" is not a ZIP code. Write its 5 digits (like 02134) or its ZIP+4 (like 02134-1234).',
      },
    ]);

    const added = await upload(owner, `/app/api/v1/customers/upload?${MAPPING}&skip_invalid_rows=true`, file);
    assert.equal(added.status, 200, added.text);
    assert.equal(added.body.added, 5);
    assert.equal(added.body.zip_leading_zeros_restored, 4, "the 9 Pine Rd row's ZIP was whole");
    assert.equal(added.body.skipped_count, 2);

    const listed = await owner.browser.request("GET", "/app/api/v1/customers");
    const stored = listed.body.customers.map((row: { address: string; normalized_address: string }) => [
      row.address,
      row.normalized_address,
    ]);
    for (const pair of [
      ["12 Oak St, Cambridge, MA 02139", "12 OAK ST, CAMBRIDGE MA 02139"],
      ["30 Elm St, MA 02139", "30 ELM ST, MA 02139"],
      ["5 Main St, Newark, NJ 07102", "5 MAIN ST, NEWARK NJ 07102"],
      ["8 Calle Sol, Adjuntas, PR 00601", "8 CALLE SOL, ADJUNTAS PR 00601"],
    ]) {
      assert.ok(
        stored.some((row: string[]) => row[0] === pair[0] && row[1] === pair[1]),
        `${pair[0]} in ${JSON.stringify(stored)}`,
      );
    }

    // The CRM writes the homes whole: each card to a customer's home is suppressed, a neighbour's is mailed.
    const card = (street: string, city: string, state: string, zip: string) =>
      queuePiece(ctx, org, { street, city, state, zip, client_name: "Pat" });
    const oak = await card("12 Oak Street", "Cambridge", "MA", "02139");
    const elm = await card("30 Elm St", "Cambridge", "MA", "02139");
    const newark = await card("5 Main St", "Newark", "NJ", "07102");
    const neighbour = await card("14 Oak St", "Cambridge", "MA", "02139");
    await runPipeline(ctx, { dataDir: tempDataDir() });
    assert.equal((await pieceRow(ctx, oak.id)).status, "suppressed");
    assert.equal((await pieceRow(ctx, elm.id)).status, "suppressed", "no town in the file: the ZIP says it");
    assert.equal((await pieceRow(ctx, newark.id)).status, "suppressed");
    assert.equal((await pieceRow(ctx, neighbour.id)).status, "mailed");

    const replay = await upload(
      owner,
      `/app/api/v1/customers/upload?${MAPPING}&request_id=6f1f1c1e-8d0a-4c59-9c55-0a5b1c1d2e3f`,
      csv(["Street,City,State,Zip", "40 Oak St,Cambridge,MA,2139"]),
    );
    assert.equal(replay.body.zip_leading_zeros_restored, 1);
    const whole = await upload(
      owner,
      `/app/api/v1/customers/upload?${MAPPING}`,
      csv(["Street,City,State,Zip", "42 Oak St,Cambridge,MA,02139"]),
    );
    assert.equal(whole.status, 200, whole.text);
    assert.equal("zip_leading_zeros_restored" in whole.body, false, "absent when no ZIP was cut short");
  });

  test("past jobs: a 4-digit ZIP is staged with 5 digits and counted; the customer at that home is never mailed", async () => {
    const staged = await upload(
      owner,
      `/app/api/v1/imports/upload?${MAPPING}&customer_name=Client`,
      csv([
        "Street,City,State,Zip,Client",
        "60 Elm St,,MA,2139,Ann Lee",
        "62 Elm St,Cambridge,MA,2139-4307,Bo Chen",
        "64 Elm St,Cambridge,MA,02139,Cy Diaz",
      ]),
    );
    assert.equal(staged.status, 201, staged.text);
    assert.equal(staged.body.staged, 3, "60 Elm St, MA 2139 was not found on the map: 02139 is");
    assert.equal(staged.body.zip_leading_zeros_restored, 2);
    const rows = await queryRows<{ address: string; normalized_address: string }>(
      ctx.database.db,
      sql`SELECT address, normalized_address FROM import_rows
          WHERE import_id = ${staged.body.import_id}::uuid ORDER BY row_index`,
    );
    assert.deepEqual(rows, [
      { address: "60 Elm St, MA 02139", normalized_address: "60 ELM ST, MA 02139" },
      { address: "62 Elm St, Cambridge, MA 02139-4307", normalized_address: "62 ELM ST, CAMBRIDGE MA 02139" },
      { address: "64 Elm St, Cambridge, MA 02139", normalized_address: "64 ELM ST, CAMBRIDGE MA 02139" },
    ]);

    // Ann Lee became a customer, her home written whole by the CRM.
    const customer = await call(ctx, "POST", "/api/v1/customers/webhook", {
      key: org.key,
      body: { address: "60 Elm Street, Cambridge, MA 02139" },
    });
    assert.equal(customer.status, 200, customer.text);
    const selection = { import_ids: [staged.body.import_id], filter: {} };
    const preview = await owner.browser.request("POST", "/app/api/v1/reactivation/preview", {
      body: selection,
    });
    assert.equal(preview.status, 200, preview.text);
    assert.equal(preview.body.mailable, 2);
    assert.equal(preview.body.excluded.customer, 1);
    const sent = await owner.browser.request("POST", "/app/api/v1/reactivation/mailings", {
      body: {
        ...selection,
        name: "Tune-up",
        template: { headline: "Time for a tune-up?", message: "Call us." },
        confirmed_cards: 2,
      },
    });
    assert.equal(sent.status, 201, sent.text);
    const cards = await queryRows<{ address: string }>(
      ctx.database.db,
      sql`SELECT address FROM mail_pieces WHERE campaign_id = ${sent.body.campaign_id}::uuid ORDER BY address`,
    );
    assert.deepEqual(
      cards.map((row) => row.address),
      ["62 Elm St, Cambridge, MA 02139-4307", "64 Elm St, Cambridge, MA 02139"],
    );

    const badZip = await upload(
      owner,
      `/app/api/v1/imports/upload?${MAPPING}`,
      csv(["Street,City,State,Zip", "70 Elm St,Cambridge,MA,2139", "72 Elm St,Cambridge,MA,Cambridge"]),
    );
    assert.equal(badZip.status, 422, badZip.text);
    assert.deepEqual(badZip.body.error.details.rows, [
      {
        line: 3,
        message:
          'zip: ZIP "Cambridge" is not a ZIP code. Write its 5 digits (like 02134) or its ZIP+4 (like 02134-1234).',
      },
    ]);
  });
});
