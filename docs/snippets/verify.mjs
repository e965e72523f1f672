// Verifies a Porchlight `lead.created` delivery (Node 18+, no dependencies).
// Pass the exact bytes received (a Buffer), never a re-serialized JSON body.
import { createHmac, timingSafeEqual } from "node:crypto";
import { pathToFileURL } from "node:url";

const TOLERANCE_SECONDS = 300;

export function verifySignature(secret, timestamp, signature, rawBody, nowSeconds = Date.now() / 1000) {
  if (typeof timestamp !== "string" || typeof signature !== "string") return false;
  if (!/^[0-9]{1,15}$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(
    `sha256=${createHmac("sha256", secret).update(`${timestamp}.`).update(rawBody).digest("hex")}`,
  );
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// Command line (used by the tests): node verify.mjs SECRET TIMESTAMP SIGNATURE [NOW] < raw-body
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [secret, timestamp, signature, now] = process.argv.slice(2);
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const valid = verifySignature(
    secret,
    timestamp,
    signature,
    Buffer.concat(chunks),
    now ? Number(now) : undefined,
  );
  console.log(valid ? "valid" : "invalid");
  process.exit(valid ? 0 : 1);
}
