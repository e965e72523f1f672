import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";

const REPO = path.resolve(import.meta.dirname, "../..");
/** What `npm start` runs: the compiled server (scripts/start.mjs builds it first when stale). */
const MAIN = path.join(REPO, "dist/main.js");

let built = false;

/**
 * Compiles src/ to dist/ when it changed, once per test file (milliseconds when nothing did). The
 * web app is not built here: no process test needs it, and a Vite build takes many seconds.
 */
export function ensureServerBuilt(): void {
  if (built) return;
  const result = spawnSync(process.execPath, [path.join(REPO, "scripts/build.mjs"), "server", "--if-stale"], {
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`npm run build:server failed:\n${result.stderr}`);
  built = true;
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const children: ChildProcess[] = [];

/** Kills every server process a test file started and left running. */
export function killStarted(): void {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
}

export interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

export function start(env: Record<string, string>, args: string[] = []): Started {
  ensureServerBuilt();
  let output = "";
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr!.on("data", (chunk) => {
    output += chunk;
  });
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

export async function waitReady(port: number, started: Started) {
  for (let attempt = 0; attempt < 900; attempt++) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (response.status === 200) return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`server did not become ready:\n${started.output()}`);
}
