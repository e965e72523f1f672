import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import PDFDocument from "pdfkit";
import { fixedClock } from "../../src/clock.ts";
import { sql } from "../../src/db/database.ts";
import { createLobProvider } from "../../src/print/lob.ts";
import { PrintRejectedError } from "../../src/print/print-provider.ts";
import { admin } from "../helpers/api.ts";
import { createTestContext, type TestContext } from "../helpers/harness.ts";
import {
  adminBytes,
  LOB_ARTBOARDS,
  orgWithAutomation,
  pdfPageSize,
  pieceRow,
  queuePiece,
  runPipeline,
  startFakeLob,
} from "./helpers.ts";

/** A one-page PDF of `width` × `height` points. */
function blankPdf(width: number, height: number): Promise<Buffer> {
  const doc = new PDFDocument({ size: [width, height], margin: 0 });
  const chunks: Buffer[] = [];
  return new Promise((resolve) => {
    doc.on("data", (chunk: Buffer) => chunks.push(chunk));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.end();
  });
}

const formField = (body: Buffer, name: string) =>
  body
    .toString("latin1")
    .match(new RegExp(`name="${name.replace(/[[\]]/g, "\\$&")}"\\r\\n\\r\\n([^\\r]*)`))?.[1];

describe("print-ready card sizes", () => {
  let ctx: TestContext;
  const clock = fixedClock("2026-03-02T15:00:00.000Z");
  before(async () => {
    ctx = await createTestContext({ clock });
  });
  after(async () => ctx.close());

  for (const [size, artboard] of Object.entries(LOB_ARTBOARDS)) {
    test(`a ${size} card's files are ${artboard[0] / 72} × ${artboard[1] / 72} in, and Lob takes them as size ${size}`, async () => {
      const lob = await startFakeLob();
      try {
        const org = await orgWithAutomation(ctx);
        if (size !== "4x6") {
          const set = await admin(ctx, "PUT", `/automations/${org.automationId}/template`, { size });
          assert.equal(set.status, 200, set.text);
          assert.equal(set.body.template.size, size);
        }
        const piece = await queuePiece(ctx, org);
        const proof = await adminBytes(ctx, `/pieces/${piece.id}/proof.pdf`);
        assert.deepEqual(pdfPageSize(proof.bytes), artboard);

        await runPipeline(ctx, { printProvider: "lob", lobApiKey: "test_key", lobBaseUrl: lob.url });
        assert.equal(lob.requests.length, 1);
        assert.equal(formField(lob.requests[0]!.body, "size"), size);
        assert.equal((await pieceRow(ctx, piece.id)).status, "submitted", "the fake Lob accepted the files");
      } finally {
        await lob.close();
      }
    });
  }

  test("an automation whose stored template names the old 6x4.25 size mails the 4x6 card", async () => {
    const lob = await startFakeLob();
    try {
      const org = await orgWithAutomation(ctx);
      await ctx.database.db.execute(
        sql`UPDATE automations SET template = ${JSON.stringify({ size: "6x4.25", headline: "Hi {{client_name}}" })}::jsonb
            WHERE id = ${org.automationId}`,
      );
      const piece = await queuePiece(ctx, org);
      await runPipeline(ctx, { printProvider: "lob", lobApiKey: "test_key", lobBaseUrl: lob.url });
      assert.equal(formField(lob.requests[0]!.body, "size"), "4x6");
      assert.equal((await pieceRow(ctx, piece.id)).status, "submitted");

      const kept = await admin(ctx, "PUT", `/automations/${org.automationId}/template`, { message: "Hello" });
      assert.equal(kept.status, 200, kept.text);
      assert.equal(kept.body.template.size, "4x6", "the effective template names the size it prints");
      const retired = await admin(ctx, "PUT", `/automations/${org.automationId}/template`, {
        size: "6x4.25",
      });
      assert.equal(retired.status, 422, "a new template names a current size");
    } finally {
      await lob.close();
    }
  });

  test("the fake Lob refuses a file off its size's artboard, as Lob does: the old 6.25 × 4.5 in default is rejected", async () => {
    const lob = await startFakeLob();
    try {
      const provider = createLobProvider({ apiKey: "k", baseUrl: lob.url });
      const submit = async (front: Buffer, back: Buffer) =>
        provider.submit({
          pieceId: "00000000-0000-4000-8000-000000000001",
          orgId: "00000000-0000-4000-8000-000000000002",
          size: "4x6",
          frontPdf: front,
          backPdf: back,
          to: { name: "A", line1: "1 A St", city: "Springfield", state: "IL", zip: "62704" },
          landingUrl: "http://porchlight.test/l/x",
          description: "dimension probe",
        });
      const fits = await blankPdf(450, 306);
      await assert.rejects(submit(await blankPdf(450, 324), fits), (error: unknown) => {
        assert.ok(error instanceof PrintRejectedError);
        assert.match(error.message, /Lob answered 422: front has invalid dimensions/);
        return true;
      });
      await assert.rejects(submit(fits, await blankPdf(666, 450)), /back has invalid dimensions/);
      assert.equal((await submit(fits, fits)).status, "submitted");
    } finally {
      await lob.close();
    }
  });
});
