import { type AppHistorySize, seedAppHistory } from "../lib/app-history.ts";
import { scenarioDatabase } from "../lib/databases.ts";
import { percentile } from "../lib/load.ts";
import { BENCH_ADMIN_TOKEN, MAIN, startNodeServer } from "../lib/processes.ts";
import type { ResultRow, Scenario } from "../lib/scenario.ts";
import { openForSeeding, seedOrg } from "../lib/seed.ts";

const WARMUP = 3;
const MEASURED = 40;
const PASSWORD = "bench horse battery staple";

function historySize(kind: "pglite" | "postgres", quick: boolean): AppHistorySize {
  const pieces = quick ? 20_000 : kind === "postgres" ? 1_000_000 : 100_000;
  return { pieces, leads: pieces / 10, conversions: pieces / 50, customers: pieces / 100 };
}

/** A signed-in owner of the org, as the app's own sign-in makes one: invited, then accepted. */
export async function signedInOwner(baseUrl: string, orgId: string): Promise<string> {
  const invited = await fetch(`${baseUrl}/admin/v1/orgs/${orgId}/invitations`, {
    method: "POST",
    headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ email: "owner@scale.example", role: "owner" }),
  });
  const { invite_url } = (await invited.json()) as { invite_url: string };
  const token = new URL(invite_url).pathname.split("/").pop()!;
  const accepted = await fetch(`${baseUrl}/app/api/v1/invitations/${token}/accept`, {
    method: "POST",
    headers: { origin: baseUrl, "content-type": "application/json" },
    body: JSON.stringify({ name: "Sam Scale", password: PASSWORD }),
  });
  if (accepted.status !== 200)
    throw new Error(`invitation not accepted: ${accepted.status} ${await accepted.text()}`);
  return accepted.headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0])
    .join("; ");
}

/** Every read the app's screens make, by the screen that makes it; `first bytes` times a download's start. */
function appReads(seeded: {
  automationIds: string[];
  pieceId: string;
  leadId: string;
}): [string, string, "first bytes"?][] {
  const month = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
  return [
    ["Overview: overview", "/overview"],
    ["Overview: attention", "/attention"],
    ["Overview: first steps", "/first-steps"],
    ["Overview: unopened leads", "/leads?unopened=true"],
    ["Automations: list", "/automations"],
    ["Mail: first page", "/pieces"],
    ["Mail: status mailed", "/pieces?status=mailed"],
    ["Mail: status returned", "/pieces?status=returned"],
    ["Mail: awaiting approval", "/pieces?status=awaiting_approval"],
    ["Mail: one automation", `/pieces?automation_id=${seeded.automationIds[1]}`],
    ["Mail: last 30 days", `/pieces?from=${month}`],
    ["Mail: a piece", `/pieces/${seeded.pieceId}`],
    ["Approvals", "/approvals"],
    ["Leads: first page", "/leads"],
    ["Leads: a lead", `/leads/${seeded.leadId}`],
    ["Revenue", "/revenue"],
    ["Revenue: by source job", "/revenue/by-source-job"],
    ["Revenue: conversions CSV, first bytes", "/revenue/conversions.csv", "first bytes"],
    ["Revenue: conversions CSV (streamed, all)", "/revenue/conversions.csv"],
    ["Customers: first page", "/customers"],
    ["Customers: search", "/customers?q=4242"],
    ["Settings: mail safety", "/mail-safety"],
    ["Developers: event types", "/event-types"],
    ["Developers: event samples", "/event-samples"],
  ];
}

export const appAtScale: Scenario = {
  name: "app-at-scale",
  target:
    "every app API read a screen makes: p99 ≤ 150 ms on PostgreSQL at 1 M pieces, ≤ 300 ms on PGlite at 100 k (100 k leads / 20 k conversions at 1 M)",
  async run(context) {
    const size = historySize(context.kind, context.settings.quick);
    const database = await scenarioDatabase(context.kind, context.serverUrl);
    try {
      const seeding = await openForSeeding(database);
      const org = await seedOrg(seeding, "Scale Roofing");
      const seedStarted = Date.now();
      const seeded = await seedAppHistory(seeding, org.orgId, size);
      const seedMs = Date.now() - seedStarted;
      context.log(`app-at-scale: seeded ${size.pieces} pieces in ${seedMs} ms`);
      await seeding.close();
      const server = await startNodeServer({ entry: MAIN, args: [], env: { ...database.env } });
      const rows: ResultRow[] = [];
      try {
        const cookie = await signedInOwner(server.baseUrl, org.orgId);
        for (const [name, path, until] of appReads(seeded)) {
          const read = async () => {
            const started = performance.now();
            const response = await fetch(`${server.baseUrl}/app/api/v1${path}`, { headers: { cookie } });
            if (until === "first bytes") {
              const reader = response.body!.getReader();
              await reader.read();
              await reader.cancel();
            } else await response.arrayBuffer();
            if (response.status !== 200) throw new Error(`${path} → ${response.status}`);
            return performance.now() - started;
          };
          for (let index = 0; index < WARMUP; index++) await read();
          const latencies: number[] = [];
          for (let index = 0; index < MEASURED; index++) latencies.push(await read());
          rows.push({
            name,
            p50Ms: percentile(latencies, 0.5),
            p99Ms: percentile(latencies, 0.99),
            errors: 0,
            non2xx: 0,
          });
          context.log(
            `  ${name}: p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms`,
          );
        }
      } finally {
        await server.stop();
      }
      return {
        scenario: "app-at-scale",
        database: context.kind,
        target: appAtScale.target,
        rows,
        facts: { ...size, seedMs, server: "default start (API + workers)", sequentialRequests: MEASURED },
      };
    } finally {
      await database.dispose();
    }
  },
};
