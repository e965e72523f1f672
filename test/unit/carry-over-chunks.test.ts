import assert from "node:assert/strict";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { CARRIED_CHUNK_DAYS, carryOverChunks } from "../../scripts/carry-over-chunks.mjs";

const DAY_MS = 86_400_000;

describe("a rebuild keeps the chunks a running server may still load", () => {
  const root = mkdtempSync(path.join(tmpdir(), "carry-over-"));
  after(() => rmSync(root, { recursive: true, force: true }));

  test("the earlier build's chunks the new one lacks are linked in, newer than the limit; entries and shared chunks are the new build's", () => {
    const earlier = path.join(root, "server");
    const next = path.join(root, "server.next");
    mkdirSync(earlier);
    mkdirSync(next);
    const now = Date.now();
    const write = (dir: string, name: string, text: string, daysAgo = 0) => {
      writeFileSync(path.join(dir, name), text);
      const at = new Date(now - daysAgo * DAY_MS);
      utimesSync(path.join(dir, name), at, at);
    };
    write(earlier, "main.js", "old entry");
    write(earlier, "chunk-SHARED.js", "same code");
    write(earlier, "chunk-OLDMCP.js", "old mcp", 2);
    write(earlier, "chunk-OLDMCP.js.map", "{}", 2);
    write(earlier, "chunk-ANCIENT.js", "older than the limit", CARRIED_CHUNK_DAYS + 1);
    write(next, "main.js", "new entry");
    write(next, "chunk-SHARED.js", "same code");
    write(next, "chunk-NEWMCP.js", "new mcp");

    assert.deepEqual(carryOverChunks(earlier, next, now), ["chunk-OLDMCP.js", "chunk-OLDMCP.js.map"]);
    assert.deepEqual(readdirSync(next).sort(), [
      "chunk-NEWMCP.js",
      "chunk-OLDMCP.js",
      "chunk-OLDMCP.js.map",
      "chunk-SHARED.js",
      "main.js",
    ]);
    assert.equal(readFileSync(path.join(next, "main.js"), "utf8"), "new entry");
    assert.equal(readFileSync(path.join(next, "chunk-OLDMCP.js"), "utf8"), "old mcp");
    assert.ok(
      readdirSync(earlier).includes("chunk-OLDMCP.js"),
      "the earlier folder stays whole until the swap",
    );
    assert.deepEqual(
      carryOverChunks(path.join(root, "none"), next, now),
      [],
      "a first build carries nothing",
    );
  });
});
