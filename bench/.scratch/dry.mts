import { scenarioDatabase } from "../lib/databases.ts";
import { runLoad } from "../lib/load.ts";
import { OrgPool, rotatingIp } from "../lib/org-pool.ts";
import { MAIN, startNodeServer, pinSelfToLoadCore } from "../lib/processes.ts";

pinSelfToLoadCore();
const mode = process.argv[2] ?? "dry";
const db = await scenarioDatabase("pglite", undefined);
const server = await startNodeServer({ entry: MAIN, args: ["--role", "api"], env: { TRUST_PROXY: "true", ...db.env } });
const pool = new OrgPool(server.baseUrl, "job.completed");
await pool.ensureCapacity(80000);
const nextIp = rotatingIp();
let counter = 0;
const plan = {
  url: server.baseUrl, connections: 10, durationSeconds: Number(process.argv[3] ?? 8),
  nextRequest: () => {
    const org = pool.next(); counter++;
    if (mode === "me") return { method: "GET", path: "/api/v1/me", headers: { authorization: `Bearer ${org.key}`, "x-forwarded-for": nextIp() } };
    return { method: "POST", path: "/api/v1/events", headers: { authorization: `Bearer ${org.key}`, "content-type": "application/json", "x-forwarded-for": nextIp() },
      body: JSON.stringify({ event_type: mode === "nobind" ? "job.other" : "job.completed", object_type: "job", dedup_id: `d-${counter}`, dry_run: true,
        record: { id: `d-${counter}`, properties: { street: `${100 + counter} Pennsylvania Ave NW`, city: "Washington", state: "DC", zip: "20500", client_name: "Bench Client", amount: "1250.00", status: "completed" } } }) };
  },
};
await runLoad({ ...plan, durationSeconds: 2 });
const stats = await runLoad(plan);
console.log(mode, JSON.stringify(stats));
await server.stop();
await db.dispose();
