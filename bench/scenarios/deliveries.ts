import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { apiCall, createOrg, recordMailing } from "../lib/api-client.ts";
import { scenarioDatabase } from "../lib/databases.ts";
import { measure, percentile, runLoad } from "../lib/load.ts";
import { rotatingIp } from "../lib/org-pool.ts";
import { MAIN, startNodeServer } from "../lib/processes.ts";
import { startTimedReceiver, type TimedReceipt } from "../lib/receiver.ts";
import type { Scenario } from "../lib/scenario.ts";

const SUBSCRIPTIONS = 3;
const PIECES = 200;

/**
 * Landing-page leads captured per second (JSON posts to /l/:token) with three subscriptions,
 * delivered by the same process's worker to a local HTTPS receiver whose CA the service trusts
 * through NODE_EXTRA_CA_CERTS; end-to-end latency is receipt time minus the lead's created_at.
 */
export const deliveries: Scenario = {
  name: "deliveries",
  target:
    "leads captured per second with 3 subscriptions each; end-to-end delivery latency p50/p99 (no fixed target)",
  async run(context) {
    const receiver = await startTimedReceiver();
    const caDir = mkdtempSync(path.join(tmpdir(), "porchlight-bench-ca-"));
    const caFile = path.join(caDir, "ca.pem");
    writeFileSync(caFile, receiver.ca);
    const database = await scenarioDatabase(context.kind, context.serverUrl);
    try {
      const server = await startNodeServer({
        entry: MAIN,
        env: {
          ...database.env,
          TRUST_PROXY: "true",
          NODE_EXTRA_CA_CERTS: caFile,
          WEBHOOK_ALLOW_PRIVATE_TARGETS: "127.0.0.1,localhost",
        },
      });
      try {
        const org = await createOrg(server.baseUrl, "Bench leads");
        for (let index = 0; index < SUBSCRIPTIONS; index++) {
          const subscribed = await apiCall(server.baseUrl, "POST", "/api/v1/webhooks/subscribe", {
            key: org.key,
            body: { target_url: receiver.url(`/hook/${index}`) },
          });
          if (subscribed.status !== 200)
            throw new Error(`subscribe failed: ${JSON.stringify(subscribed.body)}`);
        }
        const addresses = Array.from({ length: PIECES }, (_, index) => ({
          address: `${index + 1} Lead St, Springfield, IL 62701`,
        }));
        const mailing = await recordMailing(server.baseUrl, org.orgId, addresses);
        const tokens = mailing.pieces.map((piece) => piece.token);
        const nextIp = rotatingIp();
        let counter = 0;
        // Never reset: an identical submission to the same page is the same lead (no delivery).
        let submission = 0;
        const capturePlan = {
          url: server.baseUrl,
          connections: context.settings.connections,
          nextRequest: () => {
            counter++;
            submission++;
            return {
              method: "POST",
              path: `/l/${tokens[counter % tokens.length]}`,
              headers: { "content-type": "application/json", "x-forwarded-for": nextIp() },
              body: JSON.stringify({
                first_name: "Bench",
                last_name: `Lead ${submission}`,
                email: `lead${submission}@example.com`,
              }),
            };
          },
        };
        const drainTimeoutMs = context.settings.quick ? 60_000 : 180_000;
        const capture = await measure(capturePlan, context.settings);
        await waitUntilQuiet(receiver.receipts, counter * SUBSCRIPTIONS, drainTimeoutMs);
        const saturated = receiver.receipts.splice(0);
        const saturatedSent = counter;
        const deliveriesPerSec = deliveryRate(saturated);

        // End-to-end latency of a system that keeps up: captures at half the rate the worker drained.
        const steadyRate = Math.max(1, Math.floor(deliveriesPerSec / SUBSCRIPTIONS / 2));
        counter = 0;
        const steady = await runLoad({
          ...capturePlan,
          connections: Math.min(capturePlan.connections, steadyRate),
          overallRate: steadyRate,
          durationSeconds: context.settings.measureSeconds,
        });
        await waitUntilQuiet(receiver.receipts, counter * SUBSCRIPTIONS, drainTimeoutMs);
        const steadyLatencies = latenciesOf(receiver.receipts);
        const backlogLatencies = latenciesOf(saturated);
        return {
          scenario: "deliveries",
          database: context.kind,
          target: this.target,
          rows: [
            {
              name: `lead capture, ${SUBSCRIPTIONS} subscriptions`,
              reqPerSec: capture.median.reqPerSec,
              p50Ms: capture.median.p50Ms,
              p99Ms: capture.median.p99Ms,
              errors: capture.median.errors,
              non2xx: capture.median.non2xx,
              peakRssMb: server.peakRssMb(),
              runs: capture.runs,
            },
            {
              name: "delivery latency, saturated capture",
              reqPerSec: deliveriesPerSec,
              p50Ms: percentile(backlogLatencies, 0.5),
              p99Ms: percentile(backlogLatencies, 0.99),
              note: `deliveries/s; ${saturated.length} received for ${saturatedSent} captures × ${SUBSCRIPTIONS}; latency includes the backlog`,
            },
            {
              name: `delivery latency at ${steadyRate} captures/s`,
              reqPerSec: steady.reqPerSec,
              p50Ms: percentile(steadyLatencies, 0.5),
              p99Ms: percentile(steadyLatencies, 0.99),
              errors: steady.errors,
              non2xx: steady.non2xx,
              note: `fixed rate, half the drained delivery rate; ${receiver.receipts.length} received for ${counter} captures × ${SUBSCRIPTIONS}`,
            },
          ],
        };
      } finally {
        await server.stop();
      }
    } finally {
      await database.dispose();
      await receiver.close();
      rmSync(caDir, { recursive: true, force: true });
    }
  },
};

/** Waits for every expected delivery, or until none arrived for 5 s (or the time is up). */
async function waitUntilQuiet(receipts: unknown[], expected: number, timeoutMs: number): Promise<void> {
  const started = Date.now();
  let lastCount = -1;
  let lastChange = Date.now();
  while (receipts.length < expected && Date.now() - started < timeoutMs) {
    if (receipts.length !== lastCount) {
      lastCount = receipts.length;
      lastChange = Date.now();
    } else if (Date.now() - lastChange > 5_000) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Receipt time minus the lead's created_at, per delivery. */
function latenciesOf(receipts: readonly TimedReceipt[]): number[] {
  return receipts.map((receipt) => {
    const lead = JSON.parse(receipt.body.toString("utf8")) as { created_at: string };
    return receipt.receivedAt - Date.parse(lead.created_at);
  });
}

/** Deliveries per second from the first receipt to the last. */
function deliveryRate(receipts: readonly TimedReceipt[]): number {
  if (receipts.length < 2) return receipts.length;
  const seconds = (receipts.at(-1)!.receivedAt - receipts[0]!.receivedAt) / 1000;
  return Math.round(receipts.length / Math.max(seconds, 0.001));
}
