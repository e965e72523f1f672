// @ts-check
/**
 * New Lead: a homeowner left their details on a postcard's landing page. A REST hook: turning a
 * Zap on subscribes Zapier's URL to `lead.created` (POST /api/v1/webhooks/subscribe), turning it
 * off unsubscribes it; each delivery is checked against the subscription's signing secret. Zap
 * set-up and tests read the newest leads by polling (GET /api/v1/integrations/leads).
 */
const { headerOf, signatureProblem } = require("../lib/api.js");

const SAMPLE = {
  id: "00000000-0000-0000-0000-000000000000",
  name: "Sample Lead",
  first_name: "Sample",
  last_name: "Lead",
  email: "sample.lead@example.com",
  phone: "+1 555 0100",
  address: "742 Evergreen Terrace, Springfield, IL 62704",
  street: "742 Evergreen Terrace",
  city: "Springfield",
  state: "IL",
  postal_code: "62704",
  country: "US",
  full_address: "742 Evergreen Terrace, Springfield, IL 62704",
  message: "Please call me about a new roof.",
  campaign_id: "00000000-0000-0000-0000-000000000000",
  campaign_name: "Spring roofing",
  source: "Landing page",
  created_at: "2026-01-01T00:00:00.000Z",
};

/**
 * @param {any} z
 * @param {any} bundle
 */
async function performSubscribe(z, bundle) {
  const response = await z.request({
    method: "POST",
    url: "/api/v1/webhooks/subscribe",
    body: { target_url: bundle.targetUrl, event: "lead.created" },
  });
  // `signing_secret` is disclosed once, here; Zapier keeps it in the Zap's subscribeData.
  if (response.data.signing_secret) return response.data;
  // Already subscribed (a Zap turned on again after its unsubscribe failed): the API never discloses
  // a secret twice, so the Zap mints its own, or it could check no delivery.
  const rotated = await z.request({
    method: "POST",
    url: "/api/v1/webhooks/rotate",
    body: { id: response.data.id },
  });
  return { ...response.data, signing_secret: rotated.data.signing_secret };
}

/**
 * @param {any} z
 * @param {any} bundle
 */
async function performUnsubscribe(z, bundle) {
  await z.request({
    method: "DELETE",
    url: "/api/v1/webhooks/subscribe",
    params: { id: bundle.subscribeData.id },
  });
  return {};
}

/**
 * One delivery: the lead, once its signature is checked. Zapier hands the raw request over as
 * `bundle.rawRequest` (content and headers). A delivery that cannot be checked (no secret kept, no
 * raw body) halts like a forged one: someone who learns the hook URL must not feed the Zap leads.
 * The app's Send test (`test: true`, the sample lead) is checked, then passes nothing on: a live
 * Zap would otherwise make a CRM record of "Jane Sample".
 * @param {any} z
 * @param {any} bundle
 */
function perform(z, bundle) {
  const secret = bundle.subscribeData?.signing_secret;
  const raw = bundle.rawRequest;
  if (!secret) {
    throw new z.errors.HaltedError(
      "This Zap keeps no signing secret, so its deliveries cannot be checked: turn the Zap off and on again.",
    );
  }
  if (!raw || typeof raw.content !== "string") {
    throw new z.errors.HaltedError("Not a delivery from your Porchlight: no signed body to check.");
  }
  const problem = signatureProblem({
    secret,
    timestamp: headerOf(raw.headers, "x-service-timestamp"),
    signature: headerOf(raw.headers, "x-service-signature"),
    rawBody: raw.content,
    nowSeconds: Math.floor(Date.now() / 1000),
  });
  if (problem) throw new z.errors.HaltedError(`Not a delivery from your Porchlight: ${problem}`);
  return bundle.cleanedRequest?.test === true ? [] : [bundle.cleanedRequest];
}

/**
 * The newest leads (at most 50), newest first, each with its `id`; an organization with no lead
 * yet gets one sample lead (`test: true`).
 * @param {any} z
 */
async function performList(z) {
  const response = await z.request({ url: "/api/v1/integrations/leads" });
  return response.data.leads;
}

module.exports = {
  key: "new_lead",
  noun: "Lead",
  display: {
    label: "New Lead",
    description: "Triggers when a homeowner leaves their details on a postcard's landing page.",
  },
  operation: {
    type: "hook",
    performSubscribe,
    performUnsubscribe,
    perform,
    performList,
    sample: SAMPLE,
    outputFields: [
      { key: "id", label: "Lead ID" },
      { key: "name", label: "Name" },
      { key: "first_name", label: "First name" },
      { key: "last_name", label: "Last name" },
      { key: "email", label: "Email" },
      { key: "phone", label: "Phone" },
      { key: "street", label: "Street" },
      { key: "city", label: "City" },
      { key: "state", label: "State" },
      { key: "postal_code", label: "ZIP" },
      { key: "full_address", label: "Full address" },
      { key: "message", label: "Message" },
      { key: "campaign_name", label: "Campaign" },
      { key: "created_at", label: "Created at", type: "datetime" },
    ],
  },
};
