import { BENCH_ADMIN_TOKEN } from "./processes.ts";

export interface BenchOrg {
  orgId: string;
  key: string;
}

async function adminCall<T>(baseUrl: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${baseUrl}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} → ${response.status}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/**
 * Waits until no job of `kind` is pending or running (the operator API's job list), at most
 * `timeoutMs`: background work that a measurement should find done, as a user would.
 */
export async function jobsSettled(baseUrl: string, kind: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { jobs } = await adminCall<{ jobs: { status: string }[] }>(baseUrl, "GET", `/jobs?kind=${kind}`);
    if (jobs.every((job) => job.status === "done" || job.status === "failed")) return;
    if (Date.now() > deadline) throw new Error(`${kind} jobs still unfinished after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Runs tasks with at most `limit` in flight. */
export async function inBatches<T>(
  count: number,
  limit: number,
  task: (index: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, count) }, async () => {
    while (next < count) {
      const index = next++;
      results[index] = await task(index);
    }
  });
  await Promise.all(lanes);
  return results;
}

export async function createOrg(baseUrl: string, name: string): Promise<BenchOrg> {
  const org = await adminCall<{ org_id: string }>(baseUrl, "POST", "/orgs", { name });
  const key = await adminCall<{ key: string }>(baseUrl, "POST", `/orgs/${org.org_id}/keys`, {
    name: "bench",
  });
  return { orgId: org.org_id, key: key.key };
}

/** An automation bound to `custom.<eventType>` for jobs, with no filters. */
export async function bindAutomation(baseUrl: string, orgId: string, eventType: string): Promise<void> {
  await adminCall(baseUrl, "POST", `/orgs/${orgId}/automations`, {
    name: `Bench ${eventType}`,
    trigger: { type: "custom_api", event_type: eventType, object_type: "job" },
  });
}

export async function recordMailing(
  baseUrl: string,
  orgId: string,
  pieces: { address: string }[],
): Promise<{ campaign_id: string; pieces: { id: string; token: string }[] }> {
  return adminCall(baseUrl, "POST", `/orgs/${orgId}/mailings`, { campaign_name: "Bench", pieces });
}

export async function apiCall(
  baseUrl: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: response.status, body };
}
