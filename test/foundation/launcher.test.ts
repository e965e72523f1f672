import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { freePort, killStarted, start, waitReady } from "../helpers/server-process.ts";

const REPO = path.resolve(import.meta.dirname, "../..");

/**
 * A checkout with the real build scripts and compiler options and a two-file server, so the
 * launcher's decisions (build, rebuild, reuse) can be watched without touching the real dist/.
 */
function scratchCheckout(): string {
  const root = mkdtempSync(path.join(tmpdir(), "porchlight-launcher-"));
  mkdirSync(path.join(root, "scripts"));
  for (const script of ["start.mjs", "build.mjs", "build-stamp.mjs", "carry-over-chunks.mjs"]) {
    copyFileSync(path.join(REPO, "scripts", script), path.join(root, "scripts", script));
  }
  copyFileSync(path.join(REPO, "tsconfig.json"), path.join(root, "tsconfig.json"));
  writeFileSync(path.join(root, "package.json"), '{ "type": "module" }\n');
  symlinkSync(path.join(REPO, "node_modules"), path.join(root, "node_modules"));
  mkdirSync(path.join(root, "src"));
  writeFileSync(
    path.join(root, "src/main.ts"),
    [
      'import { answer } from "./answer.ts";',
      "const args: string[] = process.argv.slice(2);",
      'process.stdout.write([answer, ...args].join(" "));',
    ].join("\n"),
  );
  return root;
}

function launch(root: string, args: string[] = []) {
  const result = spawnSync(process.execPath, [path.join(root, "scripts/start.mjs"), ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "" },
  });
  assert.equal(result.status, 0, result.stderr);
  return { stdout: result.stdout, stderr: result.stderr };
}

describe("npm start's launcher (scripts/start.mjs)", () => {
  const roots: string[] = [];
  after(() => {
    killStarted();
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  it("builds when src/ changed, reuses the build when it did not, and falls back to an earlier build", () => {
    const root = scratchCheckout();
    roots.push(root);
    const answer = path.join(root, "src/answer.ts");
    writeFileSync(answer, "export const answer = ;\n");
    const broken = spawnSync(process.execPath, [path.join(root, "scripts/start.mjs")], { encoding: "utf8" });
    assert.equal(broken.status, 1);
    assert.match(broken.stderr, /src\/answer\.ts:1:\d+: Unexpected ";"/);
    assert.match(broken.stderr, /no earlier build/);

    writeFileSync(answer, 'export const answer: string = "first";\n');
    const first = launch(root, ["--role", "api"]);
    assert.equal(first.stdout, "first --role api", "arguments reach the server");
    assert.match(first.stderr, /building server \(no build yet\)/);
    assert.equal(readFileSync(path.join(root, "dist/main.js"), "utf8"), 'import "./server/main.js";\n');
    assert.match(readFileSync(path.join(root, "dist/server/main.js"), "utf8"), /"first"/, "one bundle");
    const unchanged = launch(root);
    assert.equal(unchanged.stdout, "first");
    assert.equal(unchanged.stderr, "", "nothing is compiled when src/ did not change");

    writeFileSync(answer, 'export const answer: string = "second";\n');
    const changed = launch(root);
    assert.equal(changed.stdout, "second");
    assert.match(changed.stderr, /src\/answer\.ts changed/);
    assert.match(changed.stderr, /2 source files bundled/);

    const later = new Date(Date.now() + 60_000);
    utimesSync(answer, later, later);
    const touched = launch(root);
    assert.equal(touched.stdout, "second");
    assert.equal(
      touched.stderr,
      "",
      "same bytes under a new mtime (a fresh checkout or image copy) are not rebuilt",
    );

    writeFileSync(answer, "export const answer = ;\n");
    const stale = launch(root);
    assert.equal(stale.stdout, "second");
    assert.match(stale.stderr, /serving the earlier server build/);

    writeFileSync(path.join(root, "src/main.ts"), 'process.stdout.write("alone");\n');
    rmSync(answer);
    const removed = launch(root);
    assert.equal(removed.stdout, "alone");
    assert.doesNotMatch(
      readFileSync(path.join(root, "dist/server/main.js"), "utf8"),
      /second/,
      "a deleted source is no longer in the bundle",
    );
  });

  it("the compiled server (dist/main.js, no TypeScript loader) answers /readyz 200 and serves the docs UI", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-compiled-"));
    roots.push(dataDir);
    const port = await freePort();
    const started = start({
      DATA_DIR: dataDir,
      PORT: String(port),
      ADMIN_TOKEN: "launcher-test-admin-token",
      LOG_LEVEL: "info",
    });
    await waitReady(port, started);
    // The docs UI's assets are read from its package's folder, which the bundle points it back to.
    const stylesheet = await fetch(`http://127.0.0.1:${port}/docs/static/swagger-ui.css`);
    assert.equal(stylesheet.status, 200);
    assert.ok((await stylesheet.text()).length > 10_000);
    // Signal handlers are installed once start-up is complete, a moment after /readyz answers.
    while (!started.output().includes("porchlight started")) await new Promise((r) => setTimeout(r, 50));
    const commandLine = readFileSync(`/proc/${started.child.pid}/cmdline`, "utf8").split("\0");
    assert.equal(commandLine[1], path.join(REPO, "dist/main.js"));
    assert.ok(!commandLine.includes("tsx"));
    started.child.kill("SIGTERM");
    assert.equal(await started.exited, 0);
  });
});
