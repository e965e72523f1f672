#!/usr/bin/env node
// Runs every test file under test/ (except the reliability suite) with node's test runner.
// A file gets 300 s: the slowest (process starts, per-IP windows) take ~60 s on a quiet 2-core machine and over 120 s on a loaded one.
// Usage: npm test [-- <file or directory> ...]
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
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

const targets = process.argv.slice(2);
const files = (targets.length > 0 ? targets : ["test"]).flatMap((target) => collect(target, []));
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
