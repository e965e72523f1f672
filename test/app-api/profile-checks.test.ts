import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "../../src/db/database.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { createAppTestContext, ownerOfNewOrg, type SignedInUser } from "./helpers.ts";

/**
 * Every card prints the business's return address and website: Settings refuses one that could not
 * be printed usefully, on the field concerned and in words, and keeps what was saved before.
 */
describe(`app API: the business profile refuses a return address or website no card should print (${databaseLabel})`, () => {
  let ctx: TestContext;
  let owner: SignedInUser;
  const GOOD = { street: "12 Shingle Rd", city: "Springfield", state: "IL", postal_code: "62704" };

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
    owner = await ownerOfNewOrg(ctx);
    const saved = await patch({ return_address: GOOD, website: "https://rooferpros.com" });
    assert.equal(saved.status, 200, saved.text);
  });
  after(() => ctx.close());

  const patch = (body: Record<string, unknown>) =>
    owner.browser.request("PATCH", "/app/api/v1/organization", { body });

  async function refusedFields(body: Record<string, unknown>) {
    const answer = await patch(body);
    assert.equal(answer.status, 422, answer.text);
    assert.equal(answer.body.error.code, "invalid_payload");
    return answer.body.error.details.fields as Record<string, string>;
  }

  test("a return address with only a street: each missing part is named", async () => {
    assert.deepEqual(
      await refusedFields({
        return_address: { street: "12 Shingle Rd", city: "", state: "", postal_code: "" },
      }),
      {
        "return_address.city": "Enter the city",
        "return_address.state": "Enter the state's two-letter code, e.g. IL",
        "return_address.postal_code": "Enter the ZIP code",
      },
    );
  });

  test("a missing part and a wrong one are named together, so one save shows every field to correct", async () => {
    assert.deepEqual(await refusedFields({ return_address: { ...GOOD, city: "", postal_code: "abc" } }), {
      "return_address.city": "Enter the city",
      "return_address.postal_code": "ZIP abc does not exist",
    });
    assert.deepEqual(
      await refusedFields({
        return_address: { street: "Shingle Rd", city: "Springfield", state: "Illinois", postal_code: "" },
      }),
      {
        "return_address.street": 'The street "Shingle Rd" has no house number',
        "return_address.state": "Enter the state's two-letter code, e.g. IL",
        "return_address.postal_code": "Enter the ZIP code",
      },
    );
    // Without a state, a real ZIP is not judged against one.
    assert.deepEqual(await refusedFields({ return_address: { ...GOOD, state: "" } }), {
      "return_address.state": "Enter the state's two-letter code, e.g. IL",
    });
  });

  test("a return address the check before print refuses: the reason on its field", async () => {
    assert.deepEqual(await refusedFields({ return_address: { ...GOOD, postal_code: "1234" } }), {
      "return_address.postal_code": "ZIP 1234 does not exist",
    });
    assert.deepEqual(await refusedFields({ return_address: { ...GOOD, city: "Austin", state: "TX" } }), {
      "return_address.postal_code": "ZIP 62704 is in IL, not TX",
    });
    assert.deepEqual(await refusedFields({ return_address: { ...GOOD, state: "Illinois" } }), {
      "return_address.state": "Enter the state's two-letter code, e.g. IL",
    });
    assert.deepEqual(await refusedFields({ return_address: { ...GOOD, street: "Shingle Rd" } }), {
      "return_address.street": 'The street "Shingle Rd" has no house number',
    });
    const po = await patch({ return_address: { ...GOOD, street: "PO Box 77" } });
    assert.equal(po.status, 200, po.text);
  });

  test("real return addresses pass: another name the carrier takes for the ZIP's town, a grid number, a state in lower case", async () => {
    for (const address of [
      { street: "8000 Sunset Blvd", city: "West Hollywood", state: "CA", postal_code: "90046" },
      { street: "N64W23760 Main St", city: "Sussex", state: "WI", postal_code: "53089" },
      { street: "1 Oak Brook Ctr", city: "Oak Brook", state: "IL", postal_code: "60521-1234" },
    ]) {
      const answer = await patch({ return_address: address });
      assert.equal(answer.status, 200, `${JSON.stringify(address)}: ${answer.text}`);
    }
    const lower = await patch({ return_address: { ...GOOD, state: "il." } });
    assert.equal(lower.status, 200, lower.text);
    assert.equal(lower.body.return_address.state, "IL", "printed as the USPS code");
  });

  test("an address saved before these checks does not block a change of another field", async () => {
    await ctx.database.db.execute(
      sql`UPDATE organization_profiles SET return_city = NULL, return_state = NULL, return_postal_code = NULL
          WHERE org_id = ${owner.orgId}::uuid`,
    );
    const phone = await patch({ phone: "(217) 555-0100" });
    assert.equal(phone.status, 200, phone.text);
    assert.equal(phone.body.return_address.street, GOOD.street);
  });

  test("a website that is not a web address; a host name with or without https:// is", async () => {
    assert.deepEqual(await refusedFields({ website: "not a url" }), {
      website: "Enter a web address like rooferpros.com",
    });
    assert.deepEqual(await refusedFields({ website: "localhost" }), {
      website: "Enter a web address like rooferpros.com",
    });
    for (const website of ["rooferpros.com", "www.roofer-pros.co.uk/contact", "http://rooferpros.com"]) {
      const answer = await patch({ website });
      assert.equal(answer.status, 200, `${website}: ${answer.text}`);
      assert.equal(answer.body.website, website);
    }
  });

  test("a refused change saves nothing, and a null clears the address as before", async () => {
    await refusedFields({ business_name: "Shingle Pros", return_address: { ...GOOD, postal_code: "00000" } });
    const now = await owner.browser.request("GET", "/app/api/v1/organization");
    assert.notEqual(now.body.business_name, "Shingle Pros");
    const cleared = await patch({ return_address: null });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.body.return_address, null);
  });
  test("an offer longer than a 4x6 card's two offer lines is refused on its field, saving nothing; one that fits saves", async () => {
    const long =
      "Free gutter check with any roof repair, and 10% off a full replacement booked before the end of the month";
    const fields = await refusedFields({ offer: long, business_name: "Offer Pros" });
    assert.match(
      fields.offer ?? "",
      /^Too long for a 4x6 card: \d+ of its 105 characters fit its two offer lines/,
    );
    const now = await owner.browser.request("GET", "/app/api/v1/organization");
    assert.notEqual(now.body.offer, long, "the refused offer is not saved");
    assert.notEqual(now.body.business_name, "Offer Pros", "nor the rest of the change");
    const fits = await patch({ offer: "Free gutter check with any roof repair" });
    assert.equal(fits.status, 200, fits.text);
    assert.equal(fits.body.offer, "Free gutter check with any roof repair");
    // A new automation with the default text saves beside it.
    const automation = await owner.browser.request("POST", "/app/api/v1/automations", {
      body: { name: "Beside the offer", trigger: { type: "custom_api", event_type: "job.completed" } },
    });
    assert.equal(automation.status, 201, automation.text);
  });

  test("an offer saved before the check does not block a change of another field, sent with it unchanged as the form sends it", async () => {
    const long =
      "Free gutter check with any roof repair, and 10% off a full replacement booked before the end of the month";
    await ctx.database.db.execute(
      sql`UPDATE organization_profiles SET offer = ${long} WHERE org_id = ${owner.orgId}::uuid`,
    );
    const phone = await patch({ phone: "(217) 555-0142", offer: long });
    assert.equal(phone.status, 200, phone.text);
    assert.equal(phone.body.phone, "(217) 555-0142");
    // Changed, it is checked.
    assert.match((await refusedFields({ offer: `${long}!` })).offer ?? "", /^Too long for a 4x6 card/);
  });

  test("an offer naming the business is checked again when the name it prints changes", async () => {
    const fits = await patch({
      business_name: "Ace",
      offer: "Ask {{org_name}} about a free gutter check with any repair",
    });
    assert.equal(fits.status, 200, fits.text);
    const longName = "Ridgeline Roofing & Gutter Company of Greater Springfield and Shelbyville";
    assert.match((await refusedFields({ business_name: longName })).offer ?? "", /^Too long for a 4x6 card/);
    const now = await owner.browser.request("GET", "/app/api/v1/organization");
    assert.equal(now.body.business_name, "Ace", "the refused name is not saved");
    assert.equal((await patch({ phone: "(217) 555-0143" })).status, 200, "another field saves");
  });
});
