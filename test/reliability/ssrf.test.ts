import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { DeliveryClient } from "../../src/webhooks/delivery-client.ts";
import { admin, createOrg } from "../helpers/api.ts";
import { type HttpsReceiver, startHttpsReceiver } from "../helpers/https-receiver.ts";
import {
  createLeadsContext,
  drainJobs,
  type LeadsTestContext,
  mailOnePiece,
  submitLead,
  subscribe,
  testDeliveryClient,
} from "../leads/leads-helpers.ts";
import { skipWithoutPostgres } from "./helpers.ts";

/** Every way of writing a non-public or non-https target that must be refused at subscribe time. */
const REFUSED_TARGETS = [
  "http://hooks.example.com/leads",
  "ftp://hooks.example.com/leads",
  "file:///etc/passwd",
  "javascript:alert(1)",
  "https://localhost/leads",
  "https://127.0.0.1/leads",
  "https://127.1/leads",
  "https://2130706433/leads",
  "https://0x7f000001/leads",
  "https://0177.0.0.1/leads",
  "https://0.0.0.0/leads",
  "https://10.0.0.1/leads",
  "https://172.16.5.4/leads",
  "https://192.168.1.1/leads",
  "https://169.254.169.254/latest/meta-data",
  "https://100.64.0.1/leads",
  "https://[::1]/leads",
  "https://[::]/leads",
  "https://[::ffff:127.0.0.1]/leads",
  "https://[::ffff:7f00:1]/leads",
  "https://[fc00::1]/leads",
  "https://[fe80::1]/leads",
  "https://[64:ff9b::a00:1]/leads",
  "https://metadata.google.internal/computeMetadata/v1/",
  "https://private.example.com/leads",
  "https://mixed.example.com/leads",
  "https://nxdomain.example.com/leads",
  "https://user:pass@127.0.0.1/leads",
  "not a url",
  "",
];

describe("SSRF guard", { skip: skipWithoutPostgres }, () => {
  let ctx: LeadsTestContext;
  let receiver: HttpsReceiver;
  let client: DeliveryClient;
  before(async () => {
    receiver = await startHttpsReceiver();
    ctx = await createLeadsContext({
      hosts: {
        "hooks.example.com": ["93.184.216.34"],
        "private.example.com": ["10.1.2.3"],
        "mixed.example.com": ["93.184.216.34", "192.168.0.10"],
        "metadata.google.internal": ["169.254.169.254"],
        "rebind.example.com": ["93.184.216.34"],
      },
    });
    client = testDeliveryClient(ctx, { ca: receiver.ca, allowPrivateTargets: [] });
  });
  after(async () => {
    await client?.close();
    await receiver?.close();
    await ctx?.close();
  });

  for (const target of REFUSED_TARGETS) {
    it(`refuses ${JSON.stringify(target)} at subscribe time with "Failed to subscribe"`, async () => {
      const org = await createOrg(ctx);
      const response = await subscribe(ctx, org.key, target);
      assert.ok(
        [400, 422].includes(response.status),
        `${target}: ${response.status} ${JSON.stringify(response.body)}`,
      );
      assert.equal(response.body.error, "Failed to subscribe");
    });
  }

  it("accepts a public https name", async () => {
    const org = await createOrg(ctx);
    assert.equal((await subscribe(ctx, org.key, "https://hooks.example.com/leads")).status, 200);
  });

  it("makes no connection when the name's DNS answer changed to a private address after subscribing", async () => {
    const org = await createOrg(ctx);
    const { token } = await mailOnePiece(ctx, org.orgId);
    const target = `https://rebind.example.com:${receiver.port}/rebound`;
    assert.equal((await subscribe(ctx, org.key, target)).status, 200);
    ctx.resolver.set("rebind.example.com", ["127.0.0.1"]);
    await submitLead(ctx, token, { first_name: "Ada", last_name: "Lovelace", email: "ada@example.com" });
    await drainJobs(ctx, client);
    assert.equal(receiver.requests.length, 0, "the receiver on 127.0.0.1 was never reached");
    const [logged] = (await admin(ctx, "GET", `/orgs/${org.orgId}/deliveries`)).body.deliveries;
    assert.equal(logged.outcome, "blocked");
  });
});
