import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { createJobCatalog } from "../../src/jobs/job-kind.ts";
import { runPendingJobs } from "../../src/jobs/worker.ts";
import { createMailer, type Mailer } from "../../src/mail/mailer.ts";
import { capNoticeHandler } from "../../src/mail-safety/cap-notice.ts";
import { inviteAndAccept } from "../app-api/helpers.ts";
import { admin } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import {
  home,
  logger,
  orgWithAutomation,
  queuePiece,
  runPipeline,
  tempDataDir,
} from "../pipeline/helpers.ts";

describe(`mail safety: monthly spend caps (${databaseLabel})`, () => {
  let ctx: TestContext;
  const clock = fixedClock("2026-03-30T15:00:00.000Z");
  const local = { printProvider: "local" as const, dataDir: tempDataDir() };

  before(async () => {
    ctx = await createTestContext({ clock });
  });
  after(async () => ctx.close());

  const statusOf = async (id: string) => (await admin(ctx, "GET", `/pieces/${id}`)).body.status as string;

  test("a piece past the automation's card cap is capped and the automation paused; raising the cap releases it", async () => {
    const org = await orgWithAutomation(ctx);
    const set = await admin(ctx, "PATCH", `/automations/${org.automationId}/mail-safety`, {
      monthly_card_cap: 1,
    });
    assert.equal(set.status, 200, set.text);
    const first = await queuePiece(ctx, org, home("1 Cap Ct"));
    await runPipeline(ctx, local);
    const second = await queuePiece(ctx, org, home("2 Cap Ct"));
    await runPipeline(ctx, local);
    assert.equal(await statusOf(first.id), "mailed");
    const capped = await admin(ctx, "GET", `/pieces/${second.id}`);
    assert.equal(capped.body.status, "capped");
    assert.match(capped.body.status_reason, /the automation's monthly cap of 1 cards is reached/);
    assert.equal(
      (await admin(ctx, "GET", `/automations/${org.automationId}/mail-safety`)).body.paused_by_cap,
      true,
    );

    const raised = await admin(ctx, "PATCH", `/automations/${org.automationId}/mail-safety`, {
      monthly_card_cap: 2,
    });
    assert.equal(raised.status, 200, raised.text);
    assert.equal(raised.body.paused_by_cap, false, "the answer to the raise: no longer paused");
    assert.equal(await statusOf(second.id), "capped", "released by its job, not yet run");
    await runPipeline(ctx, local);
    assert.equal(await statusOf(second.id), "mailed", "the raise released the held piece");
    assert.equal(
      (await admin(ctx, "GET", `/automations/${org.automationId}/mail-safety`)).body.paused_by_cap,
      false,
    );
  });

  test("the org's money cap holds pieces across automations until the new month releases them", async () => {
    const org = await orgWithAutomation(ctx);
    await admin(ctx, "PATCH", `/orgs/${org.orgId}/mail-safety`, { monthly_spend_cap_cents: 100 });
    const profile = await ctx.database.db.execute(
      // The cost per card is the org profile's setting (the app's Settings screen).
      (await import("../../src/db/database.ts"))
        .sql`INSERT INTO organization_profiles (org_id, cost_per_card_cents)
        VALUES (${org.orgId}::uuid, 60)`,
    );
    assert.ok(profile);
    const first = await queuePiece(ctx, org, home("3 Cap Ct"));
    await runPipeline(ctx, local);
    const second = await queuePiece(ctx, org, home("4 Cap Ct"));
    await runPipeline(ctx, local);
    assert.equal(await statusOf(first.id), "mailed");
    assert.equal(await statusOf(second.id), "capped");
    const paused = async () =>
      (await admin(ctx, "GET", `/automations/${org.automationId}/mail-safety`)).body.paused_by_cap;
    assert.equal(await paused(), true, "the org's cap pauses the automation's card");
    clock.set("2026-04-01T00:00:01.000Z");
    assert.equal(await paused(), false, "a new month: the card waits only for its job");
    await runPipeline(ctx, local);
    assert.equal(await statusOf(second.id), "mailed", "April's budget");
  });

  test("a cap raised twice, and other settings changed, count a released card once", async () => {
    const org = await orgWithAutomation(ctx);
    const safety = `/automations/${org.automationId}/mail-safety`;
    await admin(ctx, "PATCH", safety, { monthly_card_cap: 1 });
    const first = await queuePiece(ctx, org, home("30 Twice Way"));
    await runPipeline(ctx, local);
    const held = await queuePiece(ctx, org, home("31 Twice Way"));
    await runPipeline(ctx, local);
    assert.equal(await statusOf(held.id), "capped");
    // Settings that are not caps leave the cap untouched and queue no retry.
    const hold = await admin(ctx, "PATCH", safety, { hold_minutes: 0 });
    assert.equal(hold.body.monthly_card_cap, 1, "a patch of another field keeps the cap");
    for (const cap of [3, 3])
      assert.equal((await admin(ctx, "PATCH", safety, { monthly_card_cap: cap })).status, 200);
    await Promise.all([1, 2].map(() => runPipeline(ctx, local)));
    assert.equal(await statusOf(first.id), "mailed");
    assert.equal(await statusOf(held.id), "mailed");
    // Two cards counted of three: a third still mails (a double count would have capped it).
    const third = await queuePiece(ctx, org, home("32 Twice Way"));
    await runPipeline(ctx, local);
    assert.equal(await statusOf(third.id), "mailed");
    const fourth = await queuePiece(ctx, org, home("33 Twice Way"));
    await runPipeline(ctx, local);
    assert.equal(await statusOf(fourth.id), "capped");
  });

  test("several workers at once never mail past the cap", async () => {
    const org = await orgWithAutomation(ctx);
    await admin(ctx, "PATCH", `/orgs/${org.orgId}/mail-safety`, { monthly_card_cap: 3 });
    const pieces = [];
    for (let index = 0; index < 8; index++)
      pieces.push(await queuePiece(ctx, org, home(`${10 + index} Race Rd`)));
    await Promise.all([1, 2, 3, 4].map(() => runPipeline(ctx, local)));
    const statuses = await Promise.all(pieces.map((piece) => statusOf(piece.id)));
    assert.equal(statuses.filter((status) => status === "mailed").length, 3, statuses.join());
    assert.equal(statuses.filter((status) => status === "capped").length, 5, statuses.join());
  });
});

// The app's sign-in runs on the real clock: this block keeps the system clock.
describe(`mail safety: the owners' email when a cap holds pieces (${databaseLabel})`, () => {
  let ctx: TestContext;
  const local = { printProvider: "local" as const, dataDir: tempDataDir() };
  before(async () => {
    ctx = await createTestContext();
  });
  after(async () => ctx.close());

  test("the owners get one email when a cap first holds pieces in a month; members none", async () => {
    const org = await orgWithAutomation(ctx);
    await inviteAndAccept(ctx, org.orgId, "owner@bright.example", "owner");
    const member = await inviteAndAccept(ctx, org.orgId, "member@bright.example", "member", "Max Member");
    await admin(ctx, "PATCH", `/orgs/${org.orgId}/mail-safety`, { monthly_card_cap: 1 });
    for (const street of ["30 Notice Ln", "31 Notice Ln", "32 Notice Ln"]) {
      await queuePiece(ctx, org, home(street));
      await runPipeline(ctx, local);
    }
    const outbox = tempDataDir();
    const mailer = createMailer({
      smtpUrl: undefined,
      from: "porchlight@test",
      dataDir: outbox,
      logger,
      clock: ctx.clock,
    });
    const catalog = createJobCatalog([
      capNoticeHandler({ db: ctx.database.db, logger, mailer, publicBaseUrl: ctx.config.publicBaseUrl }),
    ]);
    await runPendingJobs({ db: ctx.database.db, clock: ctx.clock, logger }, catalog);
    const dir = path.join(outbox, "mail-outbox");
    const mails = readdirSync(dir).map((file) => readFileSync(path.join(dir, file), "utf8"));
    assert.equal(mails.length, 1, mails.join("\n---\n"));
    assert.match(mails[0]!, /To: owner@bright\.example/);
    assert.match(mails[0]!, /Subject: Mail paused: a monthly cap of Bright Roofing Co\. is reached/);
    assert.match(mails[0]!, /the organization's monthly cap of 1 cards is reached/);

    // Overview's Needs attention says it too, with the day the cards go out: not only a badge.
    const attention = await member.browser.request("GET", "/app/api/v1/attention");
    assert.equal(attention.status, 200, attention.text);
    const capped = attention.body.items.filter((item: { kind: string }) => item.kind === "capped_pieces");
    assert.equal(capped.length, 1, attention.text);
    // The first of the app clock's next month (this suite's pipeline runs on a fixed clock of its own).
    assert.match(
      capped[0].message,
      /^2 cards wait because a monthly cap is reached: they go out on [A-Z][a-z]{2} 1, or as soon as an owner raises the cap\.$/,
    );
  });

  test("a send that fails for one owner is retried for that owner alone", async () => {
    const org = await orgWithAutomation(ctx);
    await inviteAndAccept(ctx, org.orgId, "first@bright.example", "owner", "Fay First");
    await inviteAndAccept(ctx, org.orgId, "second@bright.example", "owner", "Sam Second");
    await admin(ctx, "PATCH", `/orgs/${org.orgId}/mail-safety`, { monthly_card_cap: 1 });
    for (const street of ["40 Notice Ln", "41 Notice Ln"]) {
      await queuePiece(ctx, org, home(street));
      await runPipeline(ctx, local);
    }
    // An SMTP server that refuses the first message to one recipient, then accepts it.
    const sent: string[] = [];
    let refused = false;
    const mailer: Mailer = {
      kind: "smtp",
      async send(message) {
        if (message.to === "first@bright.example" && !refused) {
          refused = true;
          throw new Error("451 try again later");
        }
        sent.push(message.to);
      },
      close: async () => {},
    };
    const catalog = createJobCatalog([
      capNoticeHandler({ db: ctx.database.db, logger, mailer, publicBaseUrl: ctx.config.publicBaseUrl }),
    ]);
    await runPendingJobs({ db: ctx.database.db, clock: ctx.clock, logger }, catalog);
    assert.deepEqual(sent, ["second@bright.example"]);
    // The retry is due after its backoff: the worker runs two hours later.
    const later = { now: () => new Date(Date.now() + 2 * 3_600_000) };
    await runPendingJobs({ db: ctx.database.db, clock: later, logger }, catalog);
    assert.deepEqual(sent.sort(), ["first@bright.example", "second@bright.example"]);
  });

  test("a cap of 0 holds the month's first card and still tells the owners, once", async () => {
    const org = await orgWithAutomation(ctx);
    await inviteAndAccept(ctx, org.orgId, "zero@bright.example", "owner", "Zed Zero");
    await admin(ctx, "PATCH", `/orgs/${org.orgId}/mail-safety`, { monthly_card_cap: 0 });
    const pieces = [];
    for (const street of ["50 Zero Ln", "51 Zero Ln"]) {
      pieces.push(await queuePiece(ctx, org, home(street)));
      await runPipeline(ctx, local);
    }
    for (const piece of pieces)
      assert.equal((await admin(ctx, "GET", `/pieces/${piece.id}`)).body.status, "capped");
    const sent: string[] = [];
    const mailer: Mailer = {
      kind: "smtp",
      async send(message) {
        sent.push(message.to);
      },
      close: async () => {},
    };
    const catalog = createJobCatalog([
      capNoticeHandler({ db: ctx.database.db, logger, mailer, publicBaseUrl: ctx.config.publicBaseUrl }),
    ]);
    await runPendingJobs({ db: ctx.database.db, clock: ctx.clock, logger }, catalog);
    assert.deepEqual(sent, ["zero@bright.example"], "one email for the two cards held");
  });
});
