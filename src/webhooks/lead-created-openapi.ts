import { LeadCreatedPayload } from "../leads/lead-view.ts";

/** The outbound `lead.created` event, described under the document's `webhooks` (OpenAPI 3.1). */
export const LEAD_CREATED_WEBHOOK = {
  "lead.created": {
    post: {
      operationId: "leadCreated",
      summary: "A lead was captured on a landing page",
      description: [
        "Posted as JSON to every subscription of the organization after a landing-page lead is captured. Leads synced through POST /api/v1/tracking/lead are never delivered.",
        "The response status is not inspected: a delivery counts as attempted once the request completes; non-2xx responses are ignored; timeouts and blocked hosts are recorded in the service's own logs and not retried. Reconcile by polling GET /api/v1/integrations/leads and de-duplicate by `id`.",
        "Signed subscriptions send `X-Service-Timestamp` and `X-Service-Signature`; subscriptions created before signing existed are delivered unsigned (rotate to upgrade).",
        "Verification: compute HMAC-SHA256 keyed with the signing secret over `<timestamp>.<rawBody>` using the exact raw bytes received (never a re-serialized body), compare with the hex after `sha256=` in constant time, require the timestamp to be digits only, and reject a drift over 300 seconds from the current time.",
        "Events derived from a delivered lead must copy its `service_lead_id` into `record.properties.service_lead_id` (loop guard).",
      ].join("\n\n"),
      security: [],
      parameters: [
        {
          name: "X-Service-Timestamp",
          in: "header",
          required: false,
          description:
            "Unix seconds when the delivery was signed (digits only). Absent on unsigned deliveries.",
          schema: { type: "string", pattern: "^[0-9]+$" },
        },
        {
          name: "X-Service-Signature",
          in: "header",
          required: false,
          description:
            "`sha256=` followed by the hex HMAC-SHA256 of `<timestamp>.<rawBody>`. Absent on unsigned deliveries.",
          schema: { type: "string", pattern: "^sha256=[0-9a-f]{64}$" },
        },
      ],
      requestBody: { required: true, content: { "application/json": { schema: LeadCreatedPayload } } },
      responses: { "200": { description: "Any status is accepted; the service does not inspect it." } },
    },
  },
};
