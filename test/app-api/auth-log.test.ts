import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { createLogger } from "../../src/logger.ts";
import { createTestContext, type TestContext } from "../helpers/harness.ts";
import { AppBrowser, createOrg, inviteAndAccept } from "./helpers.ts";

describe("a refused sign-in in the log", () => {
  let ctx: TestContext;
  const lines: Record<string, unknown>[] = [];
  before(async () => {
    const logger = createLogger("info", { write: (line: string) => lines.push(JSON.parse(line)) });
    ctx = await createTestContext({
      logger,
      config: { dataDir: mkdtempSync(path.join(tmpdir(), "porchlight-auth-log-")) },
    });
  });
  after(() => ctx.close());

  test("Better Auth's line carries the request id the client got, and never the password", async () => {
    const orgId = await createOrg(ctx, "Logbook Roofing");
    await inviteAndAccept(ctx, orgId, "dana@logbook.example", "owner");
    const refused = await new AppBrowser(ctx).signIn("dana@logbook.example", "not the password at all");
    assert.equal(refused.status, 401);
    const requestId = refused.headers["x-request-id"];
    assert.ok(typeof requestId === "string" && requestId.length > 0);

    const authLines = lines.filter((line) => String(line.msg).startsWith("auth: "));
    assert.ok(authLines.length > 0, "Better Auth logs the refusal");
    assert.ok(
      authLines.every((line) => line.reqId === requestId),
      `each auth line carries the request's id: ${JSON.stringify(authLines)}`,
    );
    const requestLine = lines.find((line) => line.msg === "request" && line.reqId === requestId);
    assert.equal(requestLine?.status, 401, "the same id as the request's own line");
    assert.doesNotMatch(JSON.stringify(lines), /not the password at all/);
  });
});
