import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";

export const REPO = path.resolve(import.meta.dirname, "../..");
/** What `npm start` runs: the compiled server (built by ensureServerBuilt when src/ changed). */
export const MAIN = path.join(REPO, "dist/main.js");
export const BASELINE = path.join(REPO, "bench/baseline-server.ts");
export const BENCH_ADMIN_TOKEN = "bench-admin-token-0123456789abcdef";

/** The core the servers run on; the load generator (this process) takes core 0. */
const SERVER_CORE = "1";

function hasTaskset(): boolean {
  try {
    execFileSync("taskset", ["-p", String(process.pid)], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export const tasksetAvailable = hasTaskset();

/** Moves the load generator to core 0 so the server under test has core 1 to itself. */
export function pinSelfToLoadCore(): void {
  if (tasksetAvailable) execFileSync("taskset", ["-cp", "0", String(process.pid)], { stdio: "ignore" });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let built = false;

/** Compiles src/ to dist/ if it changed since the last build (once per bench run). */
function ensureServerBuilt(): void {
  if (built) return;
  const result = spawnSync(process.execPath, [path.join(REPO, "scripts/build.mjs"), "server", "--if-stale"], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (result.status !== 0) throw new Error("npm run build:server failed");
  built = true;
}

export interface RunningServer {
  child: ChildProcess;
  port: number;
  baseUrl: string;
  /** Milliseconds from spawn to the first /readyz 200. */
  readyAfterMs: number;
  output(): string;
  /** Peak resident set size so far (VmHWM), in MiB; undefined where /proc is missing. */
  peakRssMb(): number | undefined;
  stop(): Promise<void>;
}

export function peakRssMb(pid: number | undefined): number | undefined {
  const status = `/proc/${pid}/status`;
  if (pid === undefined || !existsSync(status)) return undefined;
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(status, "utf8"));
  return match ? Math.round(Number(match[1]) / 102.4) / 10 : undefined;
}

async function waitReady(url: string, child: ChildProcess, output: () => string, timeoutMs: number) {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${output()}`);
    try {
      const response = await fetch(url);
      if (response.status === 200) return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`server not ready after ${timeoutMs} ms:\n${output()}`);
}

/** Starts a Node entry point (the service or the baseline) pinned to the server core. */
export async function startNodeServer(options: {
  entry: string;
  args?: string[];
  env: Record<string, string>;
  readyPath?: string;
  readyTimeoutMs?: number;
}): Promise<RunningServer> {
  const port = Number(options.env.PORT) || (await freePort());
  // BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the servers under load.
  const extraNodeArgs = process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];
  // The service runs compiled, as `npm start` runs it; TypeScript entries (the baselines) run under tsx.
  if (options.entry === MAIN) ensureServerBuilt();
  const loader = options.entry.endsWith(".ts") ? ["--import", "tsx"] : [];
  const nodeArgs = [...extraNodeArgs, ...loader, options.entry, ...(options.args ?? [])];
  const command = tasksetAvailable ? "taskset" : process.execPath;
  const args = tasksetAvailable ? ["-c", SERVER_CORE, process.execPath, ...nodeArgs] : nodeArgs;
  let output = "";
  const spawnedAt = Date.now();
  const child = spawn(command, args, {
    cwd: REPO,
    env: {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "production",
      LOG_LEVEL: "warn",
      HOST: "127.0.0.1",
      ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      // The default start's first scheduled backup, a minute in, would land inside a measurement
      // (a CHECKPOINT and a copy of the cluster holding PGlite's locks): none unless a scenario asks.
      BACKUP_INTERVAL_HOURS: "0",
      // `EMBEDDED_SYNC=off npm run bench` measures the embedded database without its per-commit sync.
      ...(process.env.EMBEDDED_SYNC ? { EMBEDDED_SYNC: process.env.EMBEDDED_SYNC } : {}),
      ...options.env,
      PORT: String(port),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitReady(
    `${baseUrl}${options.readyPath ?? "/readyz"}`,
    child,
    () => output,
    options.readyTimeoutMs ?? 120_000,
  );
  const readyAfterMs = Date.now() - spawnedAt;
  return {
    child,
    port,
    baseUrl,
    readyAfterMs,
    output: () => output,
    peakRssMb: () => peakRssMb(child.pid),
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      const forced = setTimeout(() => child.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(forced);
    },
  };
}
