import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { checkedCustomerKey, registerCustomers } from "../../src/customers/customers.ts";
import { queryRows, sql } from "../../src/db/database.ts";
import { call, createOrg } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { createAppTestContext, inviteAndAccept, type SignedInUser } from "./helpers.ts";

const csv = (lines: string[]) => `${lines.join("\r\n")}\r\n`;
const upload = (user: SignedInUser, url: string, body: string | Buffer) =>
  user.browser.request("POST", url, { payload: body, headers: { "content-type": "text/csv" } });

describe(`app API: customer and past-job CSV uploads (${databaseLabel})`, () => {
  let ctx: TestContext;
  let org: { orgId: string; key: string };
  let member: SignedInUser;
  let otherOwner: SignedInUser;

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
    org = await createOrg(ctx);
    member = await inviteAndAccept(ctx, org.orgId, "member-upload@example.com", "member");
    const other = await createOrg(ctx);
    otherOwner = await inviteAndAccept(ctx, other.orgId, "other-upload@example.com", "owner");
  });
  after(() => ctx.close());

  test("the preview reads the header and first rows and guesses street, city, state and ZIP", async () => {
    const file = csv([
      "Customer Name,Street Address,City,ST,Zip Code,Notes",
      "Ann Lee,12 Oak Lane,Austin,TX,78701,plan",
      "Bo Chen,14 Oak Lane,Austin,TX,78701,",
    ]);
    const preview = await upload(member, "/app/api/v1/uploads/preview?purpose=customers", file);
    assert.equal(preview.status, 200, preview.text);
    assert.deepEqual(preview.body.columns, [
      "Customer Name",
      "Street Address",
      "City",
      "ST",
      "Zip Code",
      "Notes",
    ]);
    assert.deepEqual(preview.body.mapping, {
      street: "Street Address",
      city: "City",
      state: "ST",
      zip: "Zip Code",
      notes: "Notes",
    });
    assert.equal(preview.body.total_rows, 2);
    assert.deepEqual(preview.body.rows[0], {
      line: 2,
      cells: ["Ann Lee", "12 Oak Lane", "Austin", "TX", "78701", "plan"],
    });
    const jobs = await upload(member, "/app/api/v1/uploads/preview?purpose=jobs", file);
    assert.equal(jobs.body.mapping.customer_name, "Customer Name");
  });

  test('the preview guesses "Job #" and "Job No." as the job number', async () => {
    for (const header of ["Job #", "Job No.", "job_number"]) {
      const preview = await upload(
        member,
        "/app/api/v1/uploads/preview?purpose=jobs",
        csv([`${header},Service Address,Completed`, "J-1,12 Oak Lane 78701,2024-03-05"]),
      );
      assert.equal(preview.status, 200, preview.text);
      assert.equal(preview.body.mapping.external_id, header, header);
      assert.equal(preview.body.mapping.street, "Service Address");
      assert.equal(preview.body.mapping.completed_at, "Completed");
    }
  });

  test("a file that is not CSV (a spreadsheet, a PDF) or has a stray quote is refused in plain words", async () => {
    const xlsx = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]), Buffer.alloc(64, 7)]);
    const pdf = Buffer.from("%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n");
    const utf16 = Buffer.from("\ufeffstreet\r\n1 Pine Rd\r\n", "utf16le");
    for (const [label, body] of [
      ["xlsx", xlsx],
      ["pdf", pdf],
      ["utf-16", utf16],
    ] as const) {
      for (const url of [
        "/app/api/v1/uploads/preview?purpose=customers",
        "/app/api/v1/customers/upload?street=street",
        "/app/api/v1/imports/upload?street=street",
      ]) {
        const refused = await upload(member, url, body);
        assert.equal(refused.status, 422, `${label} ${url}: ${refused.text}`);
        assert.equal(
          refused.body.error.message,
          "This file is not a CSV file. In your spreadsheet, choose File → Save as (or Download) → CSV, then upload that file.",
        );
      }
    }
    const strayQuote = await upload(
      member,
      "/app/api/v1/uploads/preview?purpose=customers",
      csv(["street,city", '12 Oak Lane,"Austin', "14 Oak Lane,Austin"]),
    );
    assert.equal(strayQuote.status, 422, strayQuote.text);
    assert.match(
      strayQuote.body.error.message,
      /^Line \d+ of the file has a quote mark \("\) that is not closed/,
    );
    assert.doesNotMatch(strayQuote.body.error.message, /Invalid|Quote Not Closed|option/);
    // An inch mark inside a cell is text, not a quote to close.
    const inches = await upload(
      member,
      "/app/api/v1/uploads/preview?purpose=customers",
      csv(["street,notes", '12 Oak Lane 78701,6" gutters on the north side']),
    );
    assert.equal(inches.status, 200, inches.text);
    assert.match(JSON.stringify(inches.body), /6\\" gutters on the north side/);
  });

  test("a CSV of customers goes through the API's customers service; search pages with a keyset cursor", async () => {
    const lines = ["street,city,state,zip,notes"];
    for (let n = 1; n <= 60; n++) lines.push(`${100 + n} Maple Ave,Springfield,IL,62704,row ${n}`);
    const added = await upload(
      member,
      "/app/api/v1/customers/upload?street=street&city=city&state=state&zip=zip&notes=notes",
      csv(lines),
    );
    assert.equal(added.status, 200, added.text);
    assert.deepEqual(added.body, { added: 60, total: 60, rows: 60, stopped_cards: 0 });

    const first = await member.browser.request("GET", "/app/api/v1/customers");
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.customers.length, 50);
    assert.equal(first.body.total, 60);
    assert.ok(first.body.next_cursor);
    const second = await member.browser.request(
      "GET",
      `/app/api/v1/customers?cursor=${encodeURIComponent(first.body.next_cursor)}`,
    );
    assert.equal(second.body.customers.length, 10);
    assert.equal(second.body.next_cursor, null);
    const seen = new Set(
      [...first.body.customers, ...second.body.customers].map((c: any) => c.normalized_address),
    );
    assert.equal(seen.size, 60, "no home twice, none missed");
    assert.equal(first.body.customers[0].source, "csv_upload");

    const found = await member.browser.request("GET", "/app/api/v1/customers?q=159%20maple");
    assert.equal(found.body.customers.length, 1);
    assert.equal(found.body.customers[0].notes, "row 59");
    const foreign = await member.browser.request("GET", "/app/api/v1/customers?cursor=bm90LWEtY3Vyc29y");
    assert.equal(foreign.status, 422);
  });

  test("each customer says how it came: the form (app), a CSV upload (csv_upload) or the customers API (webhook)", async () => {
    const typed = await member.browser.request("POST", "/app/api/v1/customers", {
      body: { address: "1 Juniper Ct, Austin, TX 78704" },
    });
    assert.equal(typed.status, 200, typed.text);
    // The typed home again in the file: it keeps the way it came first.
    const uploaded = await upload(
      member,
      "/app/api/v1/customers/upload?street=street",
      csv(["street", '"1 Juniper Ct, Austin, TX 78704"', '"3 Juniper Ct, Austin, TX 78704"']),
    );
    assert.equal(uploaded.status, 200, uploaded.text);
    const viaApi = await call(ctx, "POST", "/api/v1/customers/webhook", {
      key: org.key,
      body: { address: "5 Juniper Ct, Austin, TX 78704" },
    });
    assert.equal(viaApi.status, 200, viaApi.text);
    // The developer API's answer is its contract's, with no source in it.
    assert.deepEqual(Object.keys(viaApi.body).sort(), ["added", "total"]);

    const found = await member.browser.request("GET", "/app/api/v1/customers?q=juniper");
    assert.equal(found.status, 200, found.text);
    const sourceOf = Object.fromEntries(
      found.body.customers.map((customer: { address: string; source: string }) => [
        customer.address,
        customer.source,
      ]),
    );
    assert.deepEqual(sourceOf, {
      "1 Juniper Ct, Austin, TX 78704": "app",
      "3 Juniper Ct, Austin, TX 78704": "csv_upload",
      "5 Juniper Ct, Austin, TX 78704": "webhook",
    });
  });

  test("an uploaded address is parsed once: registration takes the key the row checks made", async () => {
    // A key given with the entry is used as it is; the address is not parsed again (nor could this one be).
    const keyed = await registerCustomers(
      ctx.database.db,
      org.orgId,
      [{ address: "the porch by the creek", field: "address", key: "9 creek rd keyed 00000" }],
      "app",
      ctx.clock.now(),
    );
    assert.equal(keyed.added, 1);
    const stored = await queryRows(
      ctx.database.db,
      sql`SELECT address FROM customers WHERE org_id = ${org.orgId}::uuid AND normalized_address = '9 creek rd keyed 00000'`,
    );
    assert.equal(stored.length, 1);
    await ctx.database.db.execute(
      sql`DELETE FROM customers WHERE org_id = ${org.orgId}::uuid AND normalized_address = '9 creek rd keyed 00000'`,
    );
    // Through the upload, the stored key is the one the address check made.
    const added = await upload(
      member,
      "/app/api/v1/customers/upload?street=street",
      csv(["street", '"7 Birch Ct, Austin, TX 78703"']),
    );
    assert.equal(added.status, 200, added.text);
    const found = await member.browser.request("GET", "/app/api/v1/customers?q=birch");
    assert.equal(
      found.body.customers[0].normalized_address,
      checkedCustomerKey({ address: "7 Birch Ct, Austin, TX 78703", field: "address" }),
    );
  });

  test("a file with bad rows adds nothing and names every bad row by its line", async () => {
    const file = csv([
      "Address,City,State,Zip",
      "20 Elm St,Austin,TX,78702",
      ",,,",
      "22 Elm St\u202e,Austin,TX,78702",
      ",,,,extra",
      "24 Elm St,Austin,TX,78702",
      ", , , ",
      "26 Elm St,,,",
      ",Austin,TX,78702",
      "28 Elm St,Nowhere,TX,00000",
    ]);
    const refused = await upload(
      member,
      "/app/api/v1/customers/upload?street=Address&city=City&state=State&zip=Zip",
      file,
    );
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.body.error.code, "invalid_payload");
    assert.match(refused.body.error.message, /nothing was added/);
    const lines = refused.body.error.details.rows.map((row: { line: number }) => row.line);
    assert.deepEqual(lines, [4, 5, 8, 9, 10]);
    assert.match(refused.body.error.details.rows[0].message, /address/);
    assert.match(refused.body.error.details.rows[2].message, /city or ZIP/);
    assert.match(refused.body.error.details.rows[4].message, /ZIP 00000 does not exist/);
    const none = await member.browser.request("GET", "/app/api/v1/customers?q=Elm");
    assert.equal(none.body.customers.length, 0);
  });

  test("with skip_invalid_rows the good rows are added and the answer lists the bad ones by line", async () => {
    const file = csv([
      "Address,City,State,Zip",
      "50 Larch St,Austin,TX,78702",
      ",Austin,TX,78702",
      "52 Larch St,Austin,TX,78702",
      "54 Larch St,,,",
    ]);
    const base = "/app/api/v1/customers/upload?street=Address&city=City&state=State&zip=Zip";
    const refused = await upload(member, base, file);
    assert.equal(refused.status, 422, refused.text);
    assert.equal(
      refused.body.error.message,
      "2 rows cannot be imported; nothing was added. Fix them and upload again.",
      "the default stays all-or-nothing",
    );
    const explicit = await upload(member, `${base}&skip_invalid_rows=false`, file);
    assert.equal(explicit.status, 422, explicit.text);
    assert.equal(
      (await member.browser.request("GET", "/app/api/v1/customers?q=Larch")).body.customers.length,
      0,
    );

    const requestId = "5d0b7f3e-2a41-4c8e-9b6d-1e3f5a7c9b20";
    const url = `${base}&skip_invalid_rows=true&request_id=${requestId}`;
    const added = await upload(member, url, file);
    assert.equal(added.status, 200, added.text);
    assert.equal(added.body.added, 2);
    assert.equal(added.body.rows, 2);
    assert.equal(added.body.skipped_count, 2);
    assert.deepEqual(
      added.body.skipped.map((row: { line: number }) => row.line),
      [3, 5],
    );
    assert.match(added.body.skipped[1].message, /city or ZIP/);
    const found = await member.browser.request("GET", "/app/api/v1/customers?q=Larch");
    assert.equal(found.body.customers.length, 2);

    // A retry with the same request id registers nothing again and answers the counts only.
    const retry = await upload(member, url, file);
    assert.equal(retry.status, 200, retry.text);
    assert.deepEqual(retry.body, { added: 2, total: added.body.total, rows: 2, stopped_cards: 0 });
    const still = await member.browser.request("GET", "/app/api/v1/customers?q=Larch");
    assert.equal(still.body.customers.length, 2, "registered once");

    const allBad = await upload(
      member,
      `${base}&skip_invalid_rows=true`,
      csv(["Address,City,State,Zip", ",Austin,TX,78702", "9 Larch St,,,"]),
    );
    assert.equal(allBad.status, 422, allBad.text);
    assert.equal(
      allBad.body.error.message,
      "2 rows cannot be imported; nothing was added. Fix them and upload again.",
    );
    assert.equal(allBad.body.error.details.rows.length, 2);
  });

  test("a skipping upload lists at most 200 bad rows and counts them all", async () => {
    const lines = ["street,zip", "60 Spruce Rd,62704"];
    for (let n = 0; n < 250; n++) lines.push(",62704");
    const added = await upload(
      member,
      "/app/api/v1/customers/upload?street=street&zip=zip&skip_invalid_rows=true",
      csv(lines),
    );
    assert.equal(added.status, 200, added.text);
    assert.equal(added.body.added, 1);
    assert.equal(added.body.skipped.length, 200);
    assert.equal(added.body.skipped_count, 250);
    assert.equal(added.body.skipped[0].line, 3);
  });

  test("the 1000-row rule and the 1 MiB limit hold, and the street column must be chosen", async () => {
    const many = ["street,zip"];
    for (let n = 0; n < 1001; n++) many.push(`${n + 1} Pine Rd,62704`);
    const tooMany = await upload(member, "/app/api/v1/customers/upload?street=street&zip=zip", csv(many));
    assert.equal(tooMany.status, 422, tooMany.text);
    assert.match(tooMany.body.error.message, /more than 1000 rows/);

    const huge = `street,notes\r\n${`1 Pine Rd,${"x".repeat(1000)}\r\n`.repeat(1100)}`;
    const tooLarge = await upload(member, "/app/api/v1/customers/upload?street=street", huge);
    assert.equal(tooLarge.status, 413, tooLarge.text);
    assert.equal(tooLarge.body.error.code, "payload_too_large");

    // Hundreds of thousands of one-letter columns fit in 1 MiB: refused at the header, not parsed.
    const wide = csv([Array.from({ length: 300_000 }, (_, n) => `c${n % 10}`).join(","), "1 Pine Rd"]);
    const tooWide = await upload(member, "/app/api/v1/customers/upload?street=zz", wide);
    assert.equal(tooWide.status, 422, tooWide.text);
    assert.match(tooWide.body.error.message, /at most 200/);
    // A line of a million commas is refused as its bytes arrive, before the parser builds its cells.
    const commas = await upload(
      member,
      "/app/api/v1/customers/upload?street=zz",
      `street\r\n${",".repeat(1_040_000)}`,
    );
    assert.equal(commas.status, 422, commas.text);
    assert.match(commas.body.error.message, /A line of the file has more than 200 columns/);
    // Lines ended by a carriage return alone (a Macintosh CSV) are counted apart too.
    const macRows = Array.from({ length: 30 }, (_, n) => `${n + 1} Pine Rd,62704${",".repeat(98)}`);
    const mac = await upload(
      member,
      "/app/api/v1/customers/upload?street=street&zip=zip",
      `street,zip${",".repeat(98)}\r${macRows.join("\r")}\r`,
    );
    assert.equal(mac.status, 200, mac.text);
    const justOver = csv([Array.from({ length: 201 }, (_, n) => `c${n}`).join(","), "1 Pine Rd"]);
    const named = await upload(member, "/app/api/v1/customers/upload?street=c0", justOver);
    assert.match(named.body.error.message, /^Line 1 has 201 columns/);

    const unmapped = await upload(
      member,
      "/app/api/v1/customers/upload?city=street",
      "street\r\n1 Pine Rd\r\n",
    );
    assert.equal(unmapped.status, 422);
    assert.match(unmapped.body.error.message, /street/);

    const json = await member.browser.request("POST", "/app/api/v1/customers/upload?street=street", {
      body: { street: "1 Pine Rd" },
    });
    assert.equal(json.status, 415);
  });

  test("a CSV of past jobs is staged by the import service and listed under Past jobs with its rows", async () => {
    const file = csv([
      "Job #,Client,Service Address,City,State,ZIP,Completed",
      "J-1,Ann Lee,12 Oak Lane,Austin,TX,78701,2024-03-05",
      "J-2,Bo Chen,,,,,2024-04-01",
      "J-3,Cy Diaz,14 Oak Lane,Austin,TX,78701,6/3/2024 2:15 PM",
      "J-4,Di Eno,9 Nowhere Rd,Atlantis,ZZ,00000,2024-05-01",
    ]);
    const staged = await upload(
      member,
      "/app/api/v1/imports/upload?street=Service%20Address&city=City&state=State&zip=ZIP&customer_name=Client&external_id=Job%20%23&completed_at=Completed",
      file,
    );
    assert.equal(staged.status, 201, staged.text);
    assert.equal(staged.body.staged, 2);
    assert.equal(staged.body.skipped_no_address, 1);
    assert.equal(staged.body.skipped_geocode_failed, 1);
    const list = await member.browser.request("GET", "/app/api/v1/imports");
    assert.equal(list.body.imports.length, 1);
    const batch = await member.browser.request("GET", `/app/api/v1/imports/${staged.body.import_id}`);
    assert.equal(batch.status, 200, batch.text);
    assert.deepEqual(
      batch.body.skipped_rows,
      [
        {
          row_index: 1,
          line: 3,
          address: null,
          customer_name: "Bo Chen",
          external_id: "J-2",
          reason: "no_address",
        },
        {
          row_index: 3,
          line: 5,
          address: "9 Nowhere Rd, Atlantis, ZZ 00000",
          customer_name: "Di Eno",
          external_id: "J-4",
          reason: "not_found",
        },
      ],
      "which rows were skipped, with their lines in the file and why",
    );
    assert.equal(batch.body.rows[0].customer_name, "Ann Lee");
    assert.equal(batch.body.rows[0].external_id, "J-1");
    assert.equal(batch.body.rows[0].completed_at, "2024-03-05");
    assert.equal(batch.body.rows[1].completed_at, "2024-06-03", "a spreadsheet's M/D/YYYY");
    assert.equal(typeof batch.body.rows[0].latitude, "number");

    const badDate = await upload(
      member,
      "/app/api/v1/imports/upload?street=street&completed_at=done",
      csv([
        "street,done",
        "1 Pine Rd 62704,yesterday",
        "2 Pine Rd 62704,2024-01-02",
        "3 Pine Rd 62704,2/30/2024",
      ]),
    );
    assert.equal(badDate.status, 422, badDate.text);
    assert.deepEqual(
      badDate.body.error.details.rows.map((row: { line: number }) => row.line),
      [2, 4],
    );
    assert.match(badDate.body.error.details.rows[0].message, /completed_at/);
  });

  test("a NUL byte deep in a file (past its first 4 KB) is refused in plain words, not a 500, and nothing is added", async () => {
    const good = Array.from({ length: 199 }, (_, index) => `${100 + index} Nul St,Springfield,IL,62704,fine`);
    const file = csv(["Street,City,ST,Zip,Notes", ...good, "999 Nul St,Springfield,IL,62704,bad\u0000note"]);
    assert.ok(Buffer.byteLength(file) > 4096);
    const before = await member.browser.request("GET", "/app/api/v1/customers?q=Nul St");
    for (const url of [
      "/app/api/v1/customers/upload?street=Street&city=City&state=ST&zip=Zip&notes=Notes",
      "/app/api/v1/imports/upload?street=Street&city=City&state=ST&zip=Zip&customer_name=Notes",
      "/app/api/v1/imports/upload?street=Street&city=City&state=ST&zip=Zip&external_id=Notes",
    ]) {
      const refused = await upload(member, url, file);
      assert.equal(refused.status, 422, `${url}: ${refused.text}`);
      assert.match(refused.body.error.message, /^Line 201 holds a NUL character/);
    }
    const after = await member.browser.request("GET", "/app/api/v1/customers?q=Nul St");
    assert.deepEqual(after.body, before.body, "nothing was added");
  });

  test("a past job's customer name a card could not print (a control or bidi character) is a bad row", async () => {
    const file = csv(["street,name", "80 Aspen Ct 62704,Fay Good", "82 Aspen Ct 62704,Fay\u202eevil"]);
    const refused = await upload(member, "/app/api/v1/imports/upload?street=street&customer_name=name", file);
    assert.equal(refused.status, 422, refused.text);
    assert.deepEqual(
      refused.body.error.details.rows.map((row: { line: number; message: string }) => [
        row.line,
        row.message,
      ]),
      [[3, "customer_name: contains U+202E, a control or format character that cannot be printed on a card"]],
    );
    const api = await call(ctx, "POST", "/api/v1/import/jobs", {
      key: org.key,
      body: {
        source: "jobs",
        rows: [{ address: "84 Aspen Ct, Springfield, IL 62704", customer_name: "Fay\u0001" }],
      },
    });
    assert.equal(api.status, 422, api.text);
    assert.match(api.text, /customer_name: contains U\+0001/);
  });

  test("past jobs with skip_invalid_rows: only the good rows are staged, the bad ones are listed", async () => {
    const file = csv([
      "street,done",
      "70 Aspen Ct 62704,yesterday",
      "72 Aspen Ct 62704,2024-01-02",
      "74 Aspen Ct 62704,2/30/2024",
      "76 Aspen Ct 62704,3/4/2024",
    ]);
    const base = "/app/api/v1/imports/upload?street=street&completed_at=done";
    const refused = await upload(member, base, file);
    assert.equal(refused.status, 422, refused.text);
    assert.equal(
      refused.body.error.message,
      "2 rows cannot be imported; nothing was added. Fix them and upload again.",
    );
    const before = await member.browser.request("GET", "/app/api/v1/imports");
    const requestId = "8a2e4c6d-1b3f-4e5a-9c7d-2f4b6d8e0a31";
    const url = `${base}&skip_invalid_rows=true&request_id=${requestId}`;
    const staged = await upload(member, url, file);
    assert.equal(staged.status, 201, staged.text);
    assert.equal(staged.body.staged, 2);
    assert.equal(staged.body.skipped_no_address + staged.body.skipped_geocode_failed, 0);
    assert.equal(staged.body.skipped_count, 2);
    assert.deepEqual(
      staged.body.skipped.map((row: { line: number }) => row.line),
      [2, 4],
    );
    assert.match(staged.body.skipped[0].message, /completed_at/);
    const batch = await member.browser.request("GET", `/app/api/v1/imports/${staged.body.import_id}`);
    assert.deepEqual(batch.body.rows.map((row: { completed_at: string }) => row.completed_at).sort(), [
      "2024-01-02",
      "2024-03-04",
    ]);
    const again = await upload(member, url, file);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(
      again.body,
      { import_id: staged.body.import_id, staged: 2, skipped_no_address: 0, skipped_geocode_failed: 0 },
      "the same batch, counts only",
    );
    const list = await member.browser.request("GET", "/app/api/v1/imports");
    assert.equal(list.body.imports.length, before.body.imports.length + 1, "one batch staged, not two");

    const allBad = await upload(
      member,
      `${base}&skip_invalid_rows=true`,
      csv(["street,done", "1 Pine Rd 62704,yesterday"]),
    );
    assert.equal(allBad.status, 422, allBad.text);
    assert.match(allBad.body.error.message, /^1 row cannot be imported; nothing was added/);
  });

  test("a retried upload with the same request id replays the first answer and adds nothing again", async () => {
    const requestId = "6f1c2a52-3b1e-4c55-9a7e-0c4d2b9e7a10";
    const file = csv(["street,zip", "31 Cedar Way,62704", "33 Cedar Way,62704"]);
    const url = `/app/api/v1/customers/upload?street=street&zip=zip&request_id=${requestId}`;
    const first = await upload(member, url, file);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.added, 2);
    const retry = await upload(member, url, file);
    assert.equal(retry.status, 200, retry.text);
    assert.deepEqual(retry.body, first.body, "the first answer, not '0 new'");
    // Another organization's upload with the same id is its own.
    const third = await createOrg(ctx);
    const thirdOwner = await inviteAndAccept(ctx, third.orgId, "third-upload@example.com", "owner");
    const theirs = await upload(thirdOwner, url, file);
    assert.equal(theirs.status, 200, theirs.text);
    assert.deepEqual(theirs.body, { added: 2, total: 2, rows: 2, stopped_cards: 0 });
    const badId = await upload(
      member,
      "/app/api/v1/customers/upload?street=street&request_id=not-a-uuid",
      file,
    );
    assert.equal(badId.status, 422, badId.text);

    const jobsId = "0b5d8e1f-7c2a-4e6b-8f3d-5a9c1e2b4d60";
    const jobs = csv(["street,zip", "41 Cedar Way,62704", "43 Cedar Way,62704"]);
    const jobsUrl = `/app/api/v1/imports/upload?street=street&zip=zip&request_id=${jobsId}`;
    const before = await member.browser.request("GET", "/app/api/v1/imports");
    const staged = await upload(member, jobsUrl, jobs);
    assert.equal(staged.status, 201, staged.text);
    assert.equal(staged.body.staged, 2);
    const again = await upload(member, jobsUrl, jobs);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, staged.body, "the same batch");
    const list = await member.browser.request("GET", "/app/api/v1/imports");
    assert.equal(list.body.imports.length, before.body.imports.length + 1, "one batch staged, not two");
  });

  test("the same past-jobs file sent again while its first upload runs is answered in the screen's words", async () => {
    const requestId = "5d0c8f1e-7a2b-4c3d-9e8f-0a1b2c3d4e5f";
    const url = `/app/api/v1/imports/upload?street=street&request_id=${requestId}`;
    const file = csv(["street", "90 Aspen Ct 62704", "92 Aspen Ct 62704"]);
    const answers = await Promise.all(Array.from({ length: 4 }, () => upload(member, url, file)));
    const statuses = answers.map((answer) => answer.status).sort();
    assert.equal(statuses.filter((status) => status === 201).length, 1, statuses.join());
    const waiting = answers.filter((answer) => answer.status === 409);
    assert.ok(waiting.length > 0, `the others arrived while the first ran: ${statuses.join()}`);
    for (const answer of waiting) {
      assert.equal(
        answer.body.error.message,
        "This file is still being imported. Wait a moment, then look under Past jobs.",
      );
    }
  });

  test("another organization sees none of it, and no session gets 401", async () => {
    const theirs = await otherOwner.browser.request("GET", "/app/api/v1/customers");
    assert.deepEqual(theirs.body, { customers: [], total: 0, next_cursor: null });
    const batches = await otherOwner.browser.request("GET", "/app/api/v1/imports");
    assert.deepEqual(batches.body, { imports: [] });
    const mine = await member.browser.request("GET", "/app/api/v1/imports");
    const foreign = await otherOwner.browser.request("GET", `/app/api/v1/imports/${mine.body.imports[0].id}`);
    assert.equal(foreign.status, 404);
    const anonymous = await ctx.app.inject({
      method: "POST",
      url: "/app/api/v1/customers/upload?street=street",
      headers: { "content-type": "text/csv", origin: "http://porchlight.test" },
      payload: "street\r\n1 Pine Rd\r\n",
    });
    assert.equal(anonymous.statusCode, 401);
    // The developer API's customers are the same list.
    const viaApi = await call(ctx, "POST", "/api/v1/customers/webhook", {
      key: org.key,
      body: { address: "101 Maple Ave, Springfield, IL 62704" },
    });
    assert.equal(viaApi.body.added, 0, "the CSV's home is already registered");
  });
});
