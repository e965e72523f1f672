import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHmac } from "node:crypto";
import path from "node:path";
import { describe, it } from "node:test";
import { signatureHeaders } from "../../src/webhooks/signer.ts";

const SNIPPETS = path.resolve(import.meta.dirname, "../../docs/snippets");
const SECRET = "whsec_snippet-secret";
const SENT_AT = 1_795_000_000;
const BODY = Buffer.from('{"id":"a1","service_lead_id":"a1","first_name":"Zoë","message":"Leak ☔"}', "utf8");

const signOver = (timestamp: string) =>
  `sha256=${createHmac("sha256", SECRET).update(`${timestamp}.`).update(BODY).digest("hex")}`;

const runtimes = [
  { name: "Node", command: process.execPath, file: "verify.mjs" },
  { name: "Python", command: "python3", file: "verify.py" },
  { name: "PHP", command: "php", file: "verify.php" },
];

const isInstalled = (command: string) => spawnSync(command, ["--version"], { stdio: "ignore" }).status === 0;

/** Runs a snippet's command line: SECRET TIMESTAMP SIGNATURE NOW, the raw body on stdin. */
function runSnippet(
  runtime: (typeof runtimes)[number],
  input: { timestamp: string; signature: string; body?: Buffer; now?: number; secret?: string },
) {
  const args = [
    path.join(SNIPPETS, runtime.file),
    input.secret ?? SECRET,
    input.timestamp,
    input.signature,
    String(input.now ?? SENT_AT),
  ];
  const result = spawnSync(runtime.command, args, {
    input: input.body ?? BODY,
    encoding: "utf8",
    timeout: 20_000,
  });
  return { status: result.status, stdout: result.stdout.trim(), stderr: result.stderr };
}

describe("webhook verification snippets of docs/webhooks.md", () => {
  const headers = signatureHeaders(SECRET, BODY, SENT_AT);
  const timestamp = headers["x-service-timestamp"]!;
  const signature = headers["x-service-signature"]!;

  for (const runtime of runtimes) {
    const skip = isInstalled(runtime.command) ? false : `${runtime.command} is not installed on this machine`;

    it(`${runtime.name}: accepts the server's signature over the raw bytes, with up to 300 s of drift`, {
      skip,
    }, () => {
      for (const now of [SENT_AT, SENT_AT + 300, SENT_AT - 300]) {
        const result = runSnippet(runtime, { timestamp, signature, now });
        assert.equal(result.stdout, "valid", `${now}: ${result.stderr}`);
        assert.equal(result.status, 0);
      }
    });

    it(`${runtime.name}: rejects a tampered body, a wrong secret, drift over 300 s and a non-digit timestamp`, {
      skip,
    }, () => {
      const tampered = Buffer.from(BODY.toString("utf8").replace("Zoë", "Zoe"), "utf8");
      // Signed over the odd timestamp itself, so only the digits-only rule can reject it.
      const nonDigit = (value: string) => ({ timestamp: value, signature: signOver(value) });
      const cases = [
        { timestamp, signature, body: tampered },
        { timestamp, signature, body: Buffer.concat([BODY, Buffer.from("\n")]) },
        { timestamp, signature, secret: "whsec_wrong" },
        { timestamp, signature, now: SENT_AT + 301 },
        { timestamp, signature, now: SENT_AT - 301 },
        nonDigit(`${SENT_AT}.0`),
        nonDigit(`${SENT_AT}\n`),
        nonDigit(` ${SENT_AT}`),
        { timestamp, signature: signature.slice("sha256=".length) },
        { timestamp, signature: "" },
      ];
      for (const input of cases) {
        const result = runSnippet(runtime, input);
        assert.equal(
          result.stdout,
          "invalid",
          `${JSON.stringify({ ...input, body: undefined })}: ${result.stderr}`,
        );
        assert.equal(result.status, 1);
      }
    });
  }
});
