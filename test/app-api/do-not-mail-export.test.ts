import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { doNotMailCsv } from "../../src/customers/app-customers.ts";
import { sql } from "../../src/db/database.ts";
import { normalizeAddress } from "../../src/domain/address.ts";
import { call, createOrg } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { createAppTestContext, inviteAndAccept, type SignedInUser } from "./helpers.ts";

const OPTED_OUT = "741 Evergreen Terrace, Springfield, IL 62704";

describe(`app API: the do-not-mail list as CSV (${databaseLabel})`, () => {
  let ctx: TestContext;
  let orgId: string;
  let member: SignedInUser;
  let outsider: SignedInUser;

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
    const org = await createOrg(ctx);
    orgId = org.orgId;
    member = await inviteAndAccept(ctx, orgId, "member-dnm@example.com", "member");
    const other = await createOrg(ctx);
    outsider = await inviteAndAccept(ctx, other.orgId, "owner-dnm-other@example.com", "owner");
    const added = await member.browser.request("POST", "/app/api/v1/customers", {
      body: { address: "12 Oak St, Springfield, IL 62704", notes: '=HYPERLINK("x")' },
    });
    assert.equal(added.status, 200, added.text);
    const fromCrm = await call(ctx, "POST", "/api/v1/customers/webhook", {
      key: org.key,
      body: { addresses: ["14 Oak St, Springfield, IL 62704", "16 Oak St, Springfield, IL 62704"] },
    });
    assert.equal(fromCrm.status, 200, fromCrm.text);
    // A homeowner's opt-out on a landing page (the capture itself is tested with the landing pages).
    await ctx.database.db.execute(
      sql`INSERT INTO do_not_mail (org_id, normalized_address, reason, created_at)
          VALUES (${orgId}::uuid, ${normalizeAddress(OPTED_OUT)}, 'opted_out', now())`,
    );
  });
  after(() => ctx.close());

  test("any member downloads every home never mailed: customers with where they came from, then opt-outs", async () => {
    const csv = await member.browser.request("GET", "/app/api/v1/customers/do-not-mail.csv");
    assert.equal(csv.status, 200, csv.text);
    assert.match(String(csv.headers["content-type"]), /^text\/csv; charset=utf-8/);
    assert.match(String(csv.headers["content-disposition"]), /attachment; filename="do-not-mail.csv"/);
    const lines = csv.text.trimEnd().split("\r\n");
    assert.equal(lines[0], "address,why never mailed,notes,since");
    assert.equal(lines.length, 5, csv.text);
    const typed = lines.find((line) => line.startsWith('"12 Oak St'));
    assert.match(
      typed ?? "",
      /^"12 Oak St, Springfield, IL 62704",Customer: added in the app,"'=HYPERLINK\(""x""\)",\d{4}-/,
      "a formula in the notes is defused",
    );
    assert.equal(lines.filter((line) => line.includes("Customer: your CRM")).length, 2);
    assert.match(lines.at(-1)!, /^"741 EVERGREEN TER[^"]*",Opted out on a landing page,,\d{4}-/);

    const foreign = await outsider.browser.request("GET", "/app/api/v1/customers/do-not-mail.csv");
    assert.equal(foreign.text.trimEnd().split("\r\n").length, 1, "another organization's list is its own");
    const anonymous = await call(ctx, "GET", "/app/api/v1/customers/do-not-mail.csv");
    assert.equal(anonymous.status, 401);
  });

  test("pages through a list longer than a page, each home once", async () => {
    let text = "";
    for await (const chunk of doNotMailCsv(ctx.database.db, orgId, 1)) text += chunk;
    const lines = text.trimEnd().split("\r\n");
    assert.equal(lines.length, 5);
    assert.equal(new Set(lines).size, 5);
  });

  test("pages opt-outs that share a moment by their address, each once and newest first", async () => {
    const { orgId: ownOrg } = await createOrg(ctx);
    const optOuts = [
      ["1 Elm St, Springfield, IL 62704", "2024-03-02T10:00:00Z"],
      ["2 Elm St, Springfield, IL 62704", "2024-03-01T09:00:00.000001Z"],
      ["3 Elm St, Springfield, IL 62704", "2024-03-01T09:00:00.000001Z"],
      ["4 Elm St, Springfield, IL 62704", "2024-03-01T09:00:00.000001Z"],
      ["5 Elm St, Springfield, IL 62704", "2024-02-28T08:00:00Z"],
    ];
    for (const [address, at] of optOuts)
      await ctx.database.db.execute(
        sql`INSERT INTO do_not_mail (org_id, normalized_address, reason, created_at)
            VALUES (${ownOrg}::uuid, ${normalizeAddress(address!)}, 'opted_out', ${at}::timestamptz)`,
      );
    const read = async (pageRows: number) => {
      let text = "";
      for await (const chunk of doNotMailCsv(ctx.database.db, ownOrg, pageRows)) text += chunk;
      return text.trimEnd().split("\r\n").slice(1);
    };
    const inOnePage = await read(2000);
    assert.deepEqual(
      inOnePage.map((line) => line.slice(1, 2)),
      ["1", "4", "3", "2", "5"],
      "newest first; at the same moment, by address descending",
    );
    assert.deepEqual(
      await read(2),
      inOnePage,
      "a page ends inside the shared moment and the next resumes after it",
    );
  });
});
