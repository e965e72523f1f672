// @ts-check
/**
 * Send Event: a job, deal or contact changed in the CRM (POST /api/v1/events). Automations bound
 * to the event's type in Porchlight then mail a postcard to the record's home (or its
 * neighbours). Replays with the same Dedup ID are absorbed, so Zapier's retries never mail twice.
 */
const { recordProperties } = require("../lib/properties.js");

const DRY_RUN_YES = new Set(["true", "yes", "y", "1", "on"]);
const DRY_RUN_NO = new Set(["", "false", "no", "n", "0", "off"]);

/**
 * Whether the Zap asked for a dry run. Zapier passes a Boolean field's value unchecked (a mapped
 * "Yes", "1" or "True" included): any spelling of yes is a dry run, and a value that is neither
 * yes nor no stops the step rather than mail a card on a guess.
 * @param {any} z
 * @param {unknown} value
 */
function dryRunOf(z, value) {
  const said = String(value ?? "")
    .trim()
    .toLowerCase();
  if (DRY_RUN_YES.has(said)) return true;
  if (DRY_RUN_NO.has(said)) return false;
  throw new z.errors.Error(
    `Dry run must be yes or no, not "${String(value).slice(0, 40)}": nothing was sent`,
    "invalid_dry_run",
    400,
  );
}

/**
 * @param {any} z
 * @param {any} bundle
 */
async function perform(z, bundle) {
  const input = bundle.inputData;
  const dryRun = dryRunOf(z, input.dry_run);
  const properties = recordProperties(
    {
      street: input.street,
      city: input.city,
      state: input.state,
      zip: input.zip,
      client_name: input.client_name,
      service_lead_id: input.service_lead_id,
    },
    input.properties,
  );
  const response = await z.request({
    method: "POST",
    url: "/api/v1/events",
    body: {
      event_type: input.event_type,
      object_type: input.object_type,
      dedup_id: input.dedup_id,
      ...(dryRun ? { dry_run: true } : {}),
      record: { id: String(input.record_id || input.dedup_id), properties },
    },
  });
  return response.data;
}

module.exports = {
  key: "send_event",
  noun: "Event",
  display: {
    label: "Send Event",
    description:
      "Tells Porchlight a job, deal or contact changed (e.g. a job was completed), so the automations bound to that event mail a postcard.",
  },
  operation: {
    perform,
    inputFields: [
      {
        key: "event_type",
        label: "Event type",
        required: true,
        helpText:
          "Two words joined by a dot, lowercase, like `job.completed` or `deal.won`: the event your Porchlight automation is bound to (the automation's Event type, in Automations).",
      },
      {
        key: "object_type",
        label: "Object type",
        required: true,
        choices: { job: "Job", deal: "Deal", contact: "Contact" },
      },
      {
        key: "dedup_id",
        label: "Dedup ID",
        required: true,
        helpText:
          "Unique for this event, e.g. the CRM's job ID and its status (`4711-completed`). The same ID again mails nothing more.",
      },
      {
        key: "record_id",
        label: "Record ID",
        helpText: "The CRM's ID of the job, deal or contact (default: the Dedup ID).",
      },
      {
        key: "street",
        label: "Street",
        helpText: "The home's street line. A card needs it, with a city or a ZIP.",
      },
      { key: "city", label: "City" },
      { key: "state", label: "State" },
      { key: "zip", label: "ZIP" },
      { key: "client_name", label: "Client name", helpText: "Printed on the card." },
      {
        key: "properties",
        label: "Other properties",
        dict: true,
        helpText:
          "Anything else your automation's filters or card use: `client_email`, `client_phone`, `amount`, `status` as they are; any other name becomes a custom field (`Roof Type` → `cf_roof_type`).",
      },
      {
        key: "service_lead_id",
        label: "Porchlight lead ID",
        helpText:
          "When this event comes from a Porchlight lead (the New Lead trigger's Lead ID), map it here: Porchlight then mails nothing for it, so a lead never mails itself again.",
      },
      {
        key: "dry_run",
        label: "Dry run",
        type: "boolean",
        default: "false",
        helpText: "Yes: answer what would happen, mail nothing.",
      },
    ],
    sample: {
      received: true,
      duplicate: false,
      matched_automations: 1,
      outcomes: [
        {
          automation_id: "00000000-0000-0000-0000-000000000000",
          name: "Job done",
          matched: true,
          reason: "queued",
        },
      ],
    },
    outputFields: [
      { key: "received", type: "boolean" },
      { key: "duplicate", type: "boolean" },
      { key: "matched_automations", type: "integer" },
      { key: "outcomes[]reason", label: "Outcome" },
    ],
  },
};
