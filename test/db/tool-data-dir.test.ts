import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { runCollecting, takeBackup } from "./restore-helpers.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const TSX = import.meta.resolve("tsx");
/** Never connected to: each copy here is refused before it reaches the target. */
const UNUSED_TARGET = "postgres://porchlight@127.0.0.1:1/never";

/**
 * The tool's script run from `cwd` (where the default ./data is), as `npm run` runs it from the
 * installation's folder; DATA_DIR only when given.
 */
function runTool(
  script: "db-restore.ts" | "db-copy-to-postgres.ts",
  argument: string,
  cwd: string,
  env: { DATA_DIR?: string } = {},
) {
  const tool = [process.execPath, "--import", TSX, path.join(REPO, "scripts", script), argument] as const;
  const [command, ...args] = tool;
  return runCollecting(command, args, cwd, env.DATA_DIR === undefined ? {} : { DATA_DIR: env.DATA_DIR });
}

const lines = (text: string) => text.trim().split("\n");
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("db:restore and db:copy-to-postgres say which DATA_DIR they work on", () => {
  const scratch = mkdtempSync(path.join(tmpdir(), "porchlight-tool-data-dir-"));
  after(() => rmSync(scratch, { recursive: true, force: true }));
  const folder = (name: string) => {
    const dir = path.join(scratch, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  };

  it("db:copy-to-postgres without DATA_DIR, where no ./data exists, refuses in one line naming DATA_DIR", async () => {
    const cwd = folder("copy-no-default");
    const run = await runTool("db-copy-to-postgres.ts", UNUSED_TARGET, cwd);
    assert.equal(run.status, 1);
    assert.equal(run.stdout, "");
    assert.deepEqual(lines(run.stderr), [
      `DATA_DIR is not set and the default ./data (${path.join(cwd, "data")}) does not exist: there is nothing to copy; set DATA_DIR to the stopped server's data directory, e.g. DATA_DIR=/srv/porchlight/data npm run db:copy-to-postgres -- postgres://…`,
    ]);
    assert.equal(existsSync(path.join(cwd, "data")), false, "nothing is created");
  });

  it("db:copy-to-postgres names its DATA_DIR, absolute, on its first line: the default when unset, else the one set", async () => {
    const cwd = folder("copy-default");
    mkdirSync(path.join(cwd, "data"));
    const defaulted = await runTool("db-copy-to-postgres.ts", UNUSED_TARGET, cwd);
    assert.equal(
      lines(defaulted.stdout)[0],
      `Copying the embedded database in DATA_DIR ${path.join(cwd, "data")} (DATA_DIR is not set: the default, ./data) to PostgreSQL…`,
    );
    // An empty folder: refused as before, in one line.
    assert.equal(defaulted.status, 1);
    assert.deepEqual(lines(defaulted.stderr), [
      `DATA_DIR ${path.join(cwd, "data")} holds no embedded database to copy`,
    ]);

    mkdirSync(path.join(cwd, "elsewhere"));
    const set = await runTool("db-copy-to-postgres.ts", UNUSED_TARGET, cwd, { DATA_DIR: "elsewhere" });
    assert.equal(
      lines(set.stdout)[0],
      `Copying the embedded database in DATA_DIR ${path.join(cwd, "elsewhere")} to PostgreSQL…`,
    );
    assert.equal(set.status, 1);
  });

  it("db:restore without DATA_DIR, where no ./data exists, refuses in one line naming DATA_DIR and creates nothing", async () => {
    const cwd = folder("restore-no-default");
    const file = await takeBackup(folder("restore-no-default-source"));
    const run = await runTool("db-restore.ts", file, cwd);
    assert.equal(run.status, 1);
    assert.equal(run.stdout, "");
    assert.deepEqual(lines(run.stderr), [
      `DATA_DIR is not set and the default ./data (${path.join(cwd, "data")}) does not exist: set DATA_DIR to the directory the restored server will start on, e.g. DATA_DIR=/srv/porchlight/data-restored npm run db:restore -- FILE`,
    ]);
    assert.equal(existsSync(path.join(cwd, "data")), false, "nothing is created");
  });

  it("db:restore names its DATA_DIR, absolute, on its first line, and restores into the default ./data that exists", async () => {
    const cwd = folder("restore-default");
    mkdirSync(path.join(cwd, "data"));
    const file = await takeBackup(folder("restore-default-source"));
    const defaulted = await runTool("db-restore.ts", file, cwd);
    assert.equal(defaulted.status, 0, defaulted.stderr);
    assert.match(
      lines(defaulted.stdout)[0]!,
      new RegExp(
        `^Restored ${escaped(file)} \\(taken .*\\) into DATA_DIR ${escaped(path.join(cwd, "data"))} \\(DATA_DIR is not set: the default, \\./data\\)\\.$`,
      ),
    );
    assert.equal(existsSync(path.join(cwd, "data", "PG_VERSION")), true, "restored into ./data");

    // Set (here relative, as an operator may write it): named absolute, without the default's note.
    const set = await runTool("db-restore.ts", file, cwd, { DATA_DIR: "restored" });
    assert.equal(set.status, 0, set.stderr);
    assert.match(
      lines(set.stdout)[0]!,
      new RegExp(
        `^Restored ${escaped(file)} \\(taken .*\\) into DATA_DIR ${escaped(path.join(cwd, "restored"))}\\.$`,
      ),
    );
    assert.equal(existsSync(path.join(cwd, "restored", "PG_VERSION")), true);
  });
});
