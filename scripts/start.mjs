#!/usr/bin/env node
// `npm start`: runs the compiled server (dist/main.js), building first what is missing or older
// than its sources (scripts/build.mjs: the server, and the web app when web/ exists). Arguments
// pass through: `npm start -- --role api`.
//
// The check stats the source files against each build's stamp (a few milliseconds). A build runs
// in a child process, so the compiler's memory is not held by the server; the server itself is
// imported into this process (no second Node process to start and keep).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { presentTargets, ROOT, staleReason } from "./build-stamp.mjs";

const MAIN = path.join(ROOT, "dist/main.js");

function build(target, reason) {
  process.stderr.write(`start: building ${target} (${reason})\n`);
  const result = spawnSync(process.execPath, [path.join(ROOT, "scripts/build.mjs"), target], {
    stdio: "inherit",
  });
  return result.status === 0;
}

for (const target of presentTargets()) {
  const reason = staleReason(target);
  if (!reason || build(target, reason)) continue;
  if (target === "server" && !existsSync(MAIN)) {
    process.stderr.write(
      "Failed to start: src/ could not be compiled to dist/ and there is no earlier build\n",
    );
    process.exit(1);
  }
  process.stderr.write(`start: serving the earlier ${target} build, which does not match its sources\n`);
}
await import(pathToFileURL(MAIN).href);
