#!/usr/bin/env node
// A minimal receiver of Porchlight `lead.created` deliveries (Node 20, no dependencies).
//
//   PORCHLIGHT_SIGNING_SECRET=whsec_… node examples/lead-receiver.mjs
//   PORT (default 8443), HOST (default 127.0.0.1, this machine only; HOST=0.0.0.0 takes
//   deliveries from other machines), TLS_KEY and TLS_CERT (PEM files; without them it serves plain
//   HTTP, for running behind a TLS-terminating proxy: subscriptions must be public https URLs).
//
// Each subscription has its own secret. To accept several (two subscriptions, or the old and the
// new secret during a rotation), separate them with commas: PORCHLIGHT_SIGNING_SECRET=whsec_a,whsec_b.
//
// It verifies the signature over the raw bytes before parsing anything, and de-duplicates by the
// lead's `id` (a lead may reach you twice: by delivery and by polling, or after a rotation). Keep
// the seen ids in your database (a unique index on the lead id) in production; the in-memory set
// here forgets them on restart.
import { createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import { pathToFileURL } from "node:url";

const TOLERANCE_SECONDS = 300;
const MAX_BODY_BYTES = 1_048_576;

/** The spec's rules: digits-only timestamp, ≤ 300 s of drift, HMAC over "<timestamp>.<raw>". */
export function verifySignature(secret, timestamp, signature, rawBody, nowSeconds = Date.now() / 1000) {
  if (typeof timestamp !== "string" || typeof signature !== "string") return false;
  if (!/^[0-9]{1,15}$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const mac = createHmac("sha256", secret).update(`${timestamp}.`).update(rawBody).digest("hex");
  const expected = Buffer.from(`sha256=${mac}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Remembers the last `capacity` lead ids. */
export function createSeenIds(capacity = 10_000) {
  const ids = new Set();
  return {
    /** True the first time an id is offered, false for a repeat. */
    add(id) {
      if (ids.has(id)) return false;
      ids.add(id);
      if (ids.size > capacity) ids.delete(ids.values().next().value);
      return true;
    },
  };
}

/**
 * Handles one delivery given its headers and raw bytes; returns the status and body to answer.
 * `secret` is one secret or an array of them (any one may sign). `onLead` runs once per lead id,
 * after the signature was verified.
 */
export async function handleDelivery({ secret, headers, rawBody, seen, onLead, nowSeconds }) {
  const timestamp = headers["x-service-timestamp"];
  const signature = headers["x-service-signature"];
  const secrets = [secret].flat().filter(Boolean);
  if (!secrets.some((one) => verifySignature(one, timestamp, signature, rawBody, nowSeconds))) {
    return { status: 401, body: { error: "invalid signature" } };
  }
  let lead;
  try {
    lead = JSON.parse(rawBody.toString("utf8"));
  } catch {
    return { status: 400, body: { error: "body is not JSON" } };
  }
  if (typeof lead?.id !== "string") return { status: 400, body: { error: "lead without id" } };
  if (!seen.add(lead.id)) return { status: 200, body: { received: true, duplicate: true } };
  await onLead(lead);
  return { status: 200, body: { received: true, duplicate: false } };
}

function readRawBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    request.on("data", (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(Object.assign(new Error("body too large"), { status: 413 }));
        request.destroy();
      } else {
        chunks.push(chunk);
      }
    });
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

/** The request listener: POST only; every answer is JSON. `secret`: one secret or an array. */
export function createLeadReceiver({ secret, onLead, seen = createSeenIds() }) {
  return async (request, response) => {
    const reply = (status, body) =>
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (request.method !== "POST") return reply(405, { error: "POST only" });
    try {
      const rawBody = await readRawBody(request);
      const { status, body } = await handleDelivery({
        secret,
        headers: request.headers,
        rawBody,
        seen,
        onLead,
      });
      reply(status, body);
    } catch (error) {
      reply(error.status ?? 500, { error: error.status ? error.message : "internal error" });
    }
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const secrets = (process.env.PORCHLIGHT_SIGNING_SECRET ?? "")
    .split(",")
    .map((one) => one.trim())
    .filter(Boolean);
  if (secrets.length === 0) {
    console.error(
      "Set PORCHLIGHT_SIGNING_SECRET to the signing_secret returned by POST /api/v1/webhooks/subscribe (several: comma-separated)",
    );
    process.exit(1);
  }
  const onLead = async (lead) => {
    const label = lead.test ? "sample lead" : "lead";
    console.log(`${label} ${lead.id}: ${lead.name ?? ""} <${lead.email ?? ""}> ${lead.full_address ?? ""}`);
  };
  const listener = createLeadReceiver({ secret: secrets, onLead });
  const { TLS_KEY, TLS_CERT } = process.env;
  const server =
    TLS_KEY && TLS_CERT
      ? https.createServer({ key: readFileSync(TLS_KEY), cert: readFileSync(TLS_CERT) }, listener)
      : http.createServer(listener);
  const port = Number(process.env.PORT ?? 8443);
  const host = process.env.HOST ?? "127.0.0.1";
  server.listen(port, host, () =>
    console.log(`lead receiver on ${TLS_KEY ? "https" : "http"}://${host}:${port}`),
  );
}
