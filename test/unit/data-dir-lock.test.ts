import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { DATA_DIR_LOCK_FILE } from "../../src/db/data-dir-lock.ts";

const TAKER = fileURLToPath(new URL("../helpers/take-data-dir-lock.ts", import.meta.url));

/** Starts `count` processes that try the lock of `dir` at the same instant; their answers. */
async function tryTogether(dir: string, count: number): Promise<string[]> {
  const at = String(Date.now() + 1500);
  const answers = Array.from(
    { length: count },
    () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ["--import", "tsx", TAKER, dir, at], { stdio: "pipe" });
        let out = "";
        child.stdout.on("data", (chunk) => {
          out += chunk;
        });
        child.on("error", reject);
        child.on("exit", () => resolve(out.trim()));
      }),
  );
  return Promise.all(answers);
}

describe("the data directory's lock under processes starting at once", () => {
  for (const start of ["empty", "stale"] as const) {
    test(`exactly one of four processes takes it, on a${start === "empty" ? "n empty" : " stale"} directory`, async () => {
      for (let round = 0; round < 3; round++) {
        const dir = mkdtempSync(path.join(tmpdir(), "porchlight-lock-race-"));
        try {
          // A lock left by a process that is gone: a pid no process has.
          if (start === "stale") writeFileSync(path.join(dir, DATA_DIR_LOCK_FILE), "999999999\n123\n");
          const answers = await tryTogether(dir, 4);
          assert.equal(answers.filter((answer) => answer === "GOT").length, 1, `round ${round}: ${answers}`);
          assert.deepEqual(
            readdirSync(dir).filter((name) => name !== DATA_DIR_LOCK_FILE),
            [],
            "no file is left beside the lock",
          );
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    });
  }
});
