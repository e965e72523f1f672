#!/usr/bin/env node
// Runs every test file under test/ (except the reliability suite) with node's test runner.
// A file gets 300 s: the slowest (process starts, per-IP windows) take ~60 s on a quiet 2-core machine and over 120 s on a loaded one.
// Usage: npm test [-- <file or directory> ...]
// TEST_SKIP_DATABASE_FREE=1 leaves out the files that cannot reach DATABASE_URL or REDIS_URL: CI
// sets it on its second run, against PostgreSQL and Redis, where their results could not differ.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

function collect(target, out) {
  if (statSync(target).isFile()) {
    if (target.endsWith(".test.ts")) out.push(target);
    return out;
  }
  for (const entry of readdirSync(target).sort()) {
    if (entry === "node_modules" || entry === "reliability") continue;
    collect(path.join(target, entry), out);
  }
  return out;
}

/** What a test file reaches the configured database or Redis through (directly or by an import). */
const DATABASE_REACH = /DATABASE_URL|REDIS_URL|helpers\/harness\.ts|helpers\/server-process\.ts/;
const RELATIVE_IMPORT = /from\s+"(\.{1,2}\/[^"]+\.ts)"/g;

/** True when neither the file nor a test file it imports (at any depth) names a way to the database. */
function databaseFree(file, seen = new Set()) {
  if (seen.has(file)) return true;
  seen.add(file);
  const text = readFileSync(file, "utf8");
  if (DATABASE_REACH.test(text)) return false;
  for (const [, specifier] of text.matchAll(RELATIVE_IMPORT)) {
    const imported = path.join(path.dirname(file), specifier);
    // Only test code chooses a database; the service's own modules are given one.
    if (imported.startsWith(`test${path.sep}`) && !databaseFree(imported, seen)) return false;
  }
  return true;
}

const targets = process.argv.slice(2);
let files = (targets.length > 0 ? targets : ["test"]).flatMap((target) => collect(target, []));
if (process.env.TEST_SKIP_DATABASE_FREE === "1") {
  const skipped = files.filter((file) => databaseFree(file));
  files = files.filter((file) => !skipped.includes(file));
  console.log(`# TEST_SKIP_DATABASE_FREE: ${skipped.length} files that open no database are left out`);
}
const concurrency = process.env.TEST_CONCURRENCY ?? "2";
// TAP as before, then each failure again at the end (scripts/failures-reporter.mjs).
const REPORTERS = [
  "--test-reporter=tap",
  "--test-reporter-destination=stdout",
  `--test-reporter=${path.join(import.meta.dirname, "failures-reporter.mjs")}`,
  "--test-reporter-destination=stdout",
];
const result = spawnSync(
  process.execPath,
  [
    "--import",
    "tsx",
    "--test",
    `--test-concurrency=${concurrency}`,
    "--test-timeout=300000",
    ...REPORTERS,
    ...files,
  ],
  { stdio: "inherit" },
);
process.exit(result.status ?? 1);
