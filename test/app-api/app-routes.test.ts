import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import sharp from "sharp";
import { queryOne, sql } from "../../src/db/database.ts";
import { envelope, sendEvent } from "../events/helpers.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { createAppTestContext, inviteAndAccept, ownerOfNewOrg, type SignedInUser } from "./helpers.ts";

/** An owner's org with a key, one event received, and one automation bound to it. */
async function orgWithActivity(ctx: TestContext) {
  const owner = await ownerOfNewOrg(ctx);
  const created = await owner.browser.request("POST", "/app/api/v1/keys", {
    body: { name: "CRM", scopes: ["events:write"] },
  });
  assert.equal(created.status, 201, created.text);
  const sent = await sendEvent(
    ctx,
    created.body.key,
    envelope(
      { event_type: "job.completed" },
      {
        street: "12 Oak Lane",
        city: "Austin",
        state: "TX",
        zip: "78701",
        client_name: "Jane Doe",
        cf_job_type: "roof",
      },
    ),
  );
  assert.equal(sent.status, 202, sent.text);
  const samples = await owner.browser.request("GET", "/app/api/v1/event-samples?event_type=job.completed");
  const automation = await owner.browser.request("POST", "/app/api/v1/automations", {
    body: {
      name: "Thank-you card",
      trigger: { type: "custom_api", event_type: "job.completed", object_type: "job" },
      filters: [{ property: "cf_job_type", op: "eq", value: "roof" }],
      template: {
        headline: "Thanks, {{client_name}}",
        message: "Your new roof on {{street}} looks great.",
        offer: "10% off gutters",
        card_size: "4x6",
      },
    },
  });
  assert.equal(automation.status, 201, automation.text);
  return {
    owner,
    key: created.body,
    sampleId: samples.body[0].id as string,
    automationId: automation.body.id as string,
  };
}

describe(`app routes (${databaseLabel})`, () => {
  let ctx: TestContext;
  let a: Awaited<ReturnType<typeof orgWithActivity>>;
  let member: SignedInUser;
  let b: Awaited<ReturnType<typeof orgWithActivity>>;
  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
    a = await orgWithActivity(ctx);
    member = await inviteAndAccept(ctx, a.owner.orgId, "member-a@example.com", "member", "Member A");
    b = await orgWithActivity(ctx);
  });
  after(() => ctx.close());

  test("keys: the key is shown once, listed without it, and revoking it stops the developer API", async () => {
    const list = await a.owner.browser.request("GET", "/app/api/v1/keys");
    assert.equal(list.status, 200);
    const listed = list.body.keys.find((k: { id: string }) => k.id === a.key.id);
    assert.ok(listed);
    assert.equal(listed.key, undefined);
    assert.ok(listed.last_used_at, "the event used it");
    const extra = await a.owner.browser.request("POST", "/app/api/v1/keys", { body: { name: "temp" } });
    const revoked = await a.owner.browser.request("DELETE", `/app/api/v1/keys/${extra.body.id}`);
    assert.equal(revoked.status, 204);
    assert.equal((await sendEvent(ctx, extra.body.key, envelope())).status, 401);
  });

  test("event types and samples: what the CRM sent, with property keys and the bound flag", async () => {
    const types = await a.owner.browser.request("GET", "/app/api/v1/event-types");
    assert.equal(types.status, 200);
    assert.deepEqual(
      types.body.map((t: { event_type: string; bound: boolean; count: number }) => [
        t.event_type,
        t.bound,
        t.count,
      ]),
      [["job.completed", true, 1]],
    );
    const samples = await a.owner.browser.request("GET", "/app/api/v1/event-samples");
    assert.deepEqual(samples.body[0].property_keys, [
      "cf_job_type",
      "city",
      "client_name",
      "state",
      "street",
      "zip",
    ]);
    await a.owner.browser.request("PATCH", `/app/api/v1/automations/${a.automationId}`, {
      body: { enabled: false },
    });
    const unbound = await a.owner.browser.request("GET", "/app/api/v1/event-types");
    assert.equal(unbound.body[0].bound, false);
    // The automation is there, only turned off: the answer names it (switch it on, build no duplicate).
    assert.equal(unbound.body[0].turned_off_automation.id, a.automationId);
    assert.equal(typeof unbound.body[0].turned_off_automation.name, "string");
    const attention = await a.owner.browser.request("GET", "/app/api/v1/attention");
    const offItem = attention.body.items.find((i: { kind: string }) => i.kind === "unbound_event_type");
    assert.match(offItem.message, /that listens to them is turned off/);
    assert.deepEqual(
      attention.body.items
        .filter((i: { kind: string }) => i.kind === "unbound_event_type")
        .map((i: { kind: string; event_type?: string }) => [i.kind, i.event_type]),
      [["unbound_event_type", "job.completed"]],
    );
    await a.owner.browser.request("PATCH", `/app/api/v1/automations/${a.automationId}`, {
      body: { enabled: true },
    });
    const bound = await a.owner.browser.request("GET", "/app/api/v1/event-types");
    assert.equal(bound.body[0].turned_off_automation, null, "an enabled one listens: nothing to name");
  });

  test("events that named no address are counted, marked on their samples and named in Needs attention", async () => {
    const owner = await ownerOfNewOrg(ctx);
    const key = (await owner.browser.request("POST", "/app/api/v1/keys", { body: { name: "CRM" } })).body.key;
    const automation = await owner.browser.request("POST", "/app/api/v1/automations", {
      body: { name: "Roof done", trigger: { type: "custom_api", event_type: "roof.done" } },
    });
    assert.equal(automation.status, 201, automation.text);
    const sent = await Promise.all(
      [
        { street: "4 Birch Rd", city: "Austin", state: "TX", zip: "78701" },
        { client_name: "No Address" },
        { street: "6 Birch Rd" },
      ].map((properties) => sendEvent(ctx, key, envelope({ event_type: "roof.done" }, properties))),
    );
    assert.deepEqual(
      sent.map((answer) => answer.body.outcomes[0].reason),
      ["queued", "no_address", "no_address"],
    );
    // An event type nothing listens to is not counted as missing an address: no card was due.
    await sendEvent(ctx, key, envelope({ event_type: "roof.quoted" }, { client_name: "Quote only" }));

    const types = await owner.browser.request("GET", "/app/api/v1/event-types");
    const byType = new Map(
      (
        types.body as {
          event_type: string;
          count: number;
          without_address: number;
          last_without_address_at: string | null;
        }[]
      ).map((type) => [type.event_type, type]),
    );
    assert.equal(byType.get("roof.done")!.count, 3);
    assert.equal(byType.get("roof.done")!.without_address, 2);
    assert.ok(Date.now() - Date.parse(byType.get("roof.done")!.last_without_address_at!) < 60_000);
    assert.equal(byType.get("roof.quoted")!.without_address, 0);
    assert.equal(byType.get("roof.quoted")!.last_without_address_at, null);

    const samples = await owner.browser.request("GET", "/app/api/v1/event-samples?event_type=roof.done");
    assert.deepEqual(
      (samples.body as { without_address: boolean }[]).map((sample) => sample.without_address).sort(),
      [false, true, true],
    );
    const attention = await owner.browser.request("GET", "/app/api/v1/attention");
    const items = (attention.body.items as { kind: string; event_type?: string; message: string }[]).filter(
      (item) => item.kind === "events_without_address",
    );
    assert.equal(items.length, 1, JSON.stringify(attention.body.items));
    assert.equal(items[0]!.event_type, "roof.done");
    assert.match(
      items[0]!.message,
      /^Some "roof\.done" events named no address, so no card was made for them \(2 in all, the newest on \w{3} \d+, \d{4}\)\. Check that your CRM or flow sends the job's street with its city or ZIP\.$/,
    );
  });

  test("automations: list with cards this month, get, patch the template and the enabled switch", async () => {
    const list = await a.owner.browser.request("GET", "/app/api/v1/automations");
    assert.equal(list.status, 200);
    const [automation] = list.body.automations;
    assert.equal(automation.name, "Thank-you card");
    assert.deepEqual(automation.template, {
      headline: "Thanks, {{client_name}}",
      message: "Your new roof on {{street}} looks great.",
      offer: "10% off gutters",
      card_size: "4x6",
    });
    assert.deepEqual(
      [automation.cards_sent_to_print_this_month, automation.cards_waiting],
      [0, 0],
      "the event came before the automation",
    );
    const patched = await a.owner.browser.request("PATCH", `/app/api/v1/automations/${a.automationId}`, {
      body: { enabled: false, template: { headline: "Hello {{client_name}}" } },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.enabled, false);
    assert.equal(patched.body.template.headline, "Hello {{client_name}}");
    assert.equal(patched.body.template.offer, "10% off gutters");
    const bad = await a.owner.browser.request("PATCH", `/app/api/v1/automations/${a.automationId}`, {
      body: { template: { message: "Call {{nope}}" } },
    });
    assert.equal(bad.status, 422);
    assert.ok(bad.body.error.details.fields["template.message"]);
    await a.owner.browser.request("PATCH", `/app/api/v1/automations/${a.automationId}`, {
      body: { enabled: true },
    });
    const got = await a.owner.browser.request("GET", `/app/api/v1/automations/${a.automationId}`);
    assert.equal(got.body.enabled, true);
  });

  test("dry run: queued, filtered_out naming the failing filter, no_address; nothing is written", async () => {
    const count = async () =>
      Number((await queryOne<{ n: number }>(ctx.database.db, sql`SELECT count(*) AS n FROM campaigns`))!.n);
    const before = await count();
    const run = (filters: unknown[]) =>
      a.owner.browser.request("POST", "/app/api/v1/automations/dry-run", {
        body: {
          automation: { name: "Draft", filters, template: { headline: "Hi {{client_name}}" } },
          sample_id: a.sampleId,
        },
      });
    const queued = await run([{ property: "cf_job_type", op: "eq", value: "roof" }]);
    assert.equal(queued.status, 200, queued.text);
    assert.equal(queued.body.outcome, "queued");
    assert.equal(queued.body.merge_preview.headline, "Hi Jane Doe");
    const filtered = await run([{ property: "cf_job_type", op: "eq", value: "siding" }]);
    assert.equal(filtered.body.outcome, "filtered_out");
    assert.deepEqual(filtered.body.failing_filter, { property: "cf_job_type", op: "eq", value: "siding" });
    assert.equal(await count(), before, "a dry run writes nothing");

    const key = await a.owner.browser.request("POST", "/app/api/v1/keys", { body: { name: "no-address" } });
    await sendEvent(
      ctx,
      key.body.key,
      envelope({ event_type: "contact.created", object_type: "contact" }, { client_name: "Nobody" }),
    );
    const samples = await a.owner.browser.request(
      "GET",
      "/app/api/v1/event-samples?event_type=contact.created",
    );
    const noAddress = await a.owner.browser.request("POST", "/app/api/v1/automations/dry-run", {
      body: { automation: { filters: [] }, sample_id: samples.body[0].id },
    });
    assert.equal(noAddress.body.outcome, "no_address");
  });

  test("proofs: both sides as PNG data URLs from the pipeline's renderer", async () => {
    const proof = await a.owner.browser.request("POST", "/app/api/v1/proofs", {
      body: {
        template: {
          headline: "Hello {{client_name}}",
          message: "Fresh roof on {{street}}",
          card_size: "4x6",
        },
        sample_id: a.sampleId,
      },
    });
    assert.equal(proof.status, 200, proof.text);
    for (const side of [proof.body.front_png, proof.body.back_png]) {
      assert.match(side, /^data:image\/png;base64,/);
      const meta = await sharp(Buffer.from(side.split(",")[1], "base64")).metadata();
      assert.equal(meta.format, "png");
      assert.ok(meta.width! > meta.height!, "a landscape side");
    }
  });

  test("organization profile and logo: PNG and SVG re-encoded to PNG; an SVG reaching outside is refused", async () => {
    const patched = await a.owner.browser.request("PATCH", "/app/api/v1/organization", {
      body: {
        business_name: "Acme Roofing LLC",
        phone: "(512) 555-0100",
        website: "https://acme.example",
        return_address: { street: "1 Main St", city: "Austin", state: "TX", postal_code: "78701" },
        brand_color: "#224488",
        cost_per_card_cents: 95,
        offer: "Free gutter check",
      },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.phone, "(512) 555-0100");
    assert.deepEqual(patched.body.return_address, {
      street: "1 Main St",
      city: "Austin",
      state: "TX",
      postal_code: "78701",
    });
    const jpeg = await sharp({ create: { width: 64, height: 32, channels: 3, background: "#ff0000" } })
      .jpeg()
      .toBuffer();
    const uploaded = await a.owner.browser.request("PUT", "/app/api/v1/organization/logo", {
      payload: jpeg,
      headers: { "content-type": "image/jpeg" },
    });
    assert.equal(uploaded.status, 200, uploaded.text);
    assert.equal(uploaded.body.has_logo, true);
    const logo = await a.owner.browser.request("GET", "/app/api/v1/organization/logo");
    assert.equal(logo.headers["content-type"], "image/png");
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="#08f"/></svg>',
    );
    const svgUpload = await a.owner.browser.request("PUT", "/app/api/v1/organization/logo", {
      payload: svg,
      headers: { "content-type": "image/svg+xml" },
    });
    assert.equal(svgUpload.status, 200, svgUpload.text);
    assert.equal(
      (await a.owner.browser.request("GET", "/app/api/v1/organization/logo")).headers["content-type"],
      "image/png",
    );
    const external = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><image xlink:href="file:///etc/passwd"/></svg>',
    );
    const refused = await a.owner.browser.request("PUT", "/app/api/v1/organization/logo", {
      payload: external,
      headers: { "content-type": "image/svg+xml" },
    });
    assert.equal(refused.status, 422);
    const tooBig = await a.owner.browser.request("PUT", "/app/api/v1/organization/logo", {
      payload: Buffer.alloc(3 * 1024 * 1024),
      headers: { "content-type": "image/png" },
    });
    assert.equal(tooBig.status, 413);
  });

  test("a member reads but gets 403 on keys, team and settings writes", async () => {
    assert.equal((await member.browser.request("GET", "/app/api/v1/automations")).status, 200);
    assert.equal((await member.browser.request("GET", "/app/api/v1/organization")).status, 200);
    const forbidden: [string, string, unknown?][] = [
      ["GET", "/app/api/v1/keys"],
      ["POST", "/app/api/v1/keys", { name: "x" }],
      ["DELETE", `/app/api/v1/keys/${a.key.id}`],
      ["GET", "/app/api/v1/team"],
      ["POST", "/app/api/v1/team/invitations", { email: "x@example.com", role: "owner" }],
      ["PATCH", "/app/api/v1/organization", { phone: "1" }],
      ["PATCH", "/app/api/v1/team/members/whatever", { role: "owner" }],
      ["DELETE", "/app/api/v1/team/members/whatever"],
    ];
    for (const [method, url, body] of forbidden) {
      const response = await member.browser.request(method as "GET", url, body === undefined ? {} : { body });
      assert.equal(response.status, 403, `${method} ${url}`);
      assert.equal(response.body.error.code, "forbidden", `${method} ${url}`);
    }
    const logo = await member.browser.request("PUT", "/app/api/v1/organization/logo", {
      payload: Buffer.from("x"),
      headers: { "content-type": "image/png" },
    });
    assert.equal(logo.status, 403);
  });

  test("cross-tenant: org B's user gets 404 for every id of org A, and lists show only B's data", async () => {
    const subscription = await queryOne<{ id: string }>(
      ctx.database.db,
      sql`SELECT gen_random_uuid()::text AS id`,
    );
    const teamA = await a.owner.browser.request("GET", "/app/api/v1/team");
    const memberIdA = teamA.body.members[0].id;
    const probes: [string, string, unknown?][] = [
      ["GET", `/app/api/v1/automations/${a.automationId}`],
      ["PATCH", `/app/api/v1/automations/${a.automationId}`, { enabled: false }],
      ["DELETE", `/app/api/v1/keys/${a.key.id}`],
      ["POST", "/app/api/v1/automations/dry-run", { automation: {}, sample_id: a.sampleId }],
      ["POST", "/app/api/v1/proofs", { template: {}, sample_id: a.sampleId }],
      ["PATCH", `/app/api/v1/team/members/${memberIdA}`, { role: "member" }],
      ["DELETE", `/app/api/v1/team/members/${memberIdA}`],
      ["GET", `/app/api/v1/subscriptions/${subscription!.id}/deliveries`],
    ];
    for (const [method, url, body] of probes) {
      const response = await b.owner.browser.request(
        method as "GET",
        url,
        body === undefined ? {} : { body },
      );
      assert.equal(response.status, 404, `${method} ${url}: ${response.text}`);
      assert.equal(response.body.error.code, "not_found");
    }
    const automations = await b.owner.browser.request("GET", "/app/api/v1/automations");
    assert.deepEqual(
      automations.body.automations.map((x: { id: string }) => x.id),
      [b.automationId],
    );
    const keys = await b.owner.browser.request("GET", "/app/api/v1/keys");
    assert.ok(!keys.body.keys.some((k: { id: string }) => k.id === a.key.id));
    const samples = await b.owner.browser.request("GET", "/app/api/v1/event-samples");
    assert.ok(!samples.body.some((s: { id: string }) => s.id === a.sampleId));
    const team = await b.owner.browser.request("GET", "/app/api/v1/team");
    assert.deepEqual(
      team.body.members.map((m: { email: string }) => m.email),
      [b.owner.email],
    );
    const org = await b.owner.browser.request("GET", "/app/api/v1/organization");
    assert.equal(org.body.org_id, b.owner.orgId);
    const stillThere = await a.owner.browser.request("GET", `/app/api/v1/automations/${a.automationId}`);
    assert.equal(stillThere.status, 200);
  });

  test("a path under the app API that no route takes answers 404 in the app's error shape, whatever its method", async () => {
    for (const method of ["GET", "POST", "DELETE"] as const) {
      const response = await a.owner.browser.request(method, "/app/api/v1/no-such-thing", {
        ...(method === "POST" ? { body: {} } : {}),
      });
      assert.equal(response.status, 404, `${method}: ${response.text}`);
      assert.deepEqual(response.body, {
        error: { code: "not_found", message: `no route for ${method} /app/api/v1/no-such-thing` },
      });
    }
  });

  test("every app route but the public ones answers 401 without a session", async () => {
    const doc = await a.owner.browser.request("GET", "/app/api/v1/openapi.json");
    const publicOperations = new Set([
      "getInvitation",
      "acceptInvitation",
      "joinInvitation",
      "checkPasswordReset",
    ]);
    const { AppBrowser } = await import("./helpers.ts");
    const anonymous = new AppBrowser(ctx);
    for (const [path, operations] of Object.entries(
      doc.body.paths as Record<string, Record<string, { operationId: string }>>,
    )) {
      for (const [method, operation] of Object.entries(operations)) {
        if (publicOperations.has(operation.operationId)) continue;
        const url = path.replace(/\{[^}]+\}/g, "00000000-0000-0000-0000-000000000000");
        const response = await anonymous.request(
          method.toUpperCase() as "GET",
          url,
          method === "get" ? {} : { body: {} },
        );
        assert.equal(response.status, 401, `${method} ${path}`);
      }
    }
  });
});
