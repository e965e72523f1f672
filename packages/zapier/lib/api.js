// @ts-check
/**
 * How the integration talks to a Porchlight instance: every request goes to the instance the
 * connection names (`base_url`), with the connection's API key as a bearer token, and every
 * error answer becomes the Zapier error that says what to do (reconnect, wait, fix the field).
 */
const { createHmac, timingSafeEqual } = require("node:crypto");

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * The instance's address without a trailing slash. It must be https (the API key travels with
 * every request); plain http only on this machine (a test or a tunnel's local end).
 * @param {any} z
 * @param {{ authData: { base_url?: string } }} bundle
 */
function baseUrlOf(z, bundle) {
  const raw = String(bundle.authData.base_url ?? "").trim();
  let url;
  try {
    url = new URL(raw);
  } catch {
    throw new z.errors.Error(
      `"${raw}" is not an address: enter your Porchlight's public address, like https://mail.example.com`,
      "invalid_base_url",
      400,
    );
  }
  const loopback = LOOPBACK_HOSTS.has(url.hostname) || url.hostname.startsWith("127.");
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new z.errors.Error(
      "Your Porchlight's address must start with https:// (the API key is sent with every request)",
      "invalid_base_url",
      400,
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/**
 * beforeRequest: a path ("/api/v1/…") is sent to the connection's instance, with its key.
 * @param {{ url: string, headers?: Record<string, string> }} request
 * @param {any} z
 * @param {any} bundle
 */
function addInstanceAndKey(request, z, bundle) {
  if (request.url.startsWith("/")) request.url = `${baseUrlOf(z, bundle)}${request.url}`;
  request.headers = { accept: "application/json", ...request.headers };
  if (bundle.authData?.api_key) request.headers.authorization = `Bearer ${bundle.authData.api_key}`;
  return request;
}

/** @param {{ content?: string, data?: unknown }} response */
function errorBodyOf(response) {
  try {
    const body = /** @type {{ error?: unknown, detail?: unknown }} */ (
      typeof response.data === "object" && response.data !== null
        ? response.data
        : JSON.parse(response.content ?? "")
    );
    return {
      code: typeof body.error === "string" ? body.error : undefined,
      detail: typeof body.detail === "string" ? body.detail : undefined,
    };
  } catch {
    return { code: undefined, detail: undefined };
  }
}

/**
 * afterResponse: Porchlight's `{error, detail}` answers as Zapier errors. 401: the key is
 * revoked or wrong (reconnect); 429 and 503: wait `Retry-After` and retry (nothing was applied);
 * any other 4xx/5xx: the API's own detail, which names the field.
 * @param {{ status: number, content?: string, data?: unknown, headers: { get(name: string): string | null } }} response
 * @param {any} z
 */
function readApiErrors(response, z) {
  if (response.status < 400) return response;
  const { code, detail } = errorBodyOf(response);
  const words = detail ?? code ?? `HTTP ${response.status}`;
  if (response.status === 401) {
    throw new z.errors.ExpiredAuthError(
      "Porchlight refused the API key (revoked, expired or mistyped): reconnect with a current key",
    );
  }
  if (response.status === 429 || response.status === 503) {
    const retryAfter = Number(response.headers.get("retry-after"));
    throw new z.errors.ThrottledError(
      `Porchlight asked to wait (${code ?? response.status}): ${words}`,
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 60,
    );
  }
  if (response.status === 403) {
    throw new z.errors.Error(
      "This API key may not do that: give it the events:write and webhooks:inbound scopes, or none (unrestricted)",
      code ?? "forbidden",
      403,
    );
  }
  throw new z.errors.Error(
    `Porchlight answered ${response.status}: ${words}`,
    code ?? "http_error",
    response.status,
  );
}

/** How far a signed delivery's timestamp may be from now (the spec's receiver rule). */
const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * A header of the delivery Zapier received, whatever form Zapier hands it over in
 * (`X-Service-Signature`, `x-service-signature`, or the `Http-X-Service-Signature` of its raw
 * request).
 * @param {Record<string, unknown> | undefined} headers
 * @param {string} name
 */
function headerOf(headers, name) {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers ?? {})) {
    const normal = key
      .toLowerCase()
      .replace(/_/g, "-")
      .replace(/^http-/, "");
    if (normal === wanted) return Array.isArray(value) ? String(value[0]) : String(value);
  }
  return undefined;
}

/**
 * Whether a lead delivery is Porchlight's: HMAC-SHA256 with the subscription's signing secret
 * over `<timestamp>.<raw body>`, compared in constant time, the timestamp within 300 s.
 * @param {{ secret: string, timestamp: string | undefined, signature: string | undefined, rawBody: string, nowSeconds: number }} input
 * @returns {string | undefined} why it is not, or undefined when it is
 */
function signatureProblem({ secret, timestamp, signature, rawBody, nowSeconds }) {
  if (!timestamp || !signature) return "the delivery is not signed";
  if (!/^\d+$/.test(timestamp)) return "the signature's timestamp is not a number";
  if (Math.abs(nowSeconds - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS) {
    return "the signature's timestamp is more than 300 seconds away (a replay, or a clock off)";
  }
  const expected = Buffer.from(
    `sha256=${createHmac("sha256", secret).update(`${timestamp}.${rawBody}`).digest("hex")}`,
  );
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return "the signature does not match";
  return undefined;
}

module.exports = { addInstanceAndKey, baseUrlOf, headerOf, readApiErrors, signatureProblem };
