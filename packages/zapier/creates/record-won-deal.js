// @ts-check
/**
 * Record Won Deal: a deal closed (POST /api/v1/conversions). Porchlight attributes its revenue to
 * the postcard that reached that address, and suppresses the address as a customer.
 */

/**
 * @param {any} z
 * @param {any} bundle
 */
async function perform(z, bundle) {
  const input = bundle.inputData;
  /** @type {Record<string, string>} */
  const body = {};
  for (const key of [
    "address",
    "deal_id",
    "deal_amount",
    "deal_date",
    "deal_name",
    "deal_stage",
    "contact_name",
    "contact_email",
    "campaign_id",
  ]) {
    const value = input[key];
    if (value !== undefined && value !== null && String(value) !== "") body[key] = String(value);
  }
  const response = await z.request({ method: "POST", url: "/api/v1/conversions", body });
  return response.data;
}

module.exports = {
  key: "record_won_deal",
  noun: "Won Deal",
  display: {
    label: "Record Won Deal",
    description:
      "Reports a won deal, so Porchlight credits its revenue to the postcard that reached that home.",
  },
  operation: {
    perform,
    inputFields: [
      { key: "address", label: "Service address", required: true, helpText: "The home's full address." },
      {
        key: "deal_id",
        label: "Deal ID",
        helpText: "The CRM's deal ID: reporting it again changes nothing.",
      },
      { key: "deal_amount", label: "Amount", helpText: "A number, e.g. `12500` or `12500.00`." },
      { key: "deal_date", label: "Close date", type: "datetime" },
      { key: "deal_name", label: "Deal name" },
      { key: "deal_stage", label: "Deal stage" },
      { key: "contact_name", label: "Contact name" },
      { key: "contact_email", label: "Contact email" },
      {
        key: "campaign_id",
        label: "Porchlight campaign ID",
        helpText: "When you know the campaign (a lead's Campaign ID): credited to it whatever the address.",
      },
    ],
    sample: {
      matched: true,
      attribution_type: "direct",
      campaign_id: "00000000-0000-0000-0000-000000000000",
      match_method: "geo",
      match_confidence: "high",
      conversion_id: "00000000-0000-0000-0000-000000000000",
    },
    outputFields: [
      { key: "matched", type: "boolean" },
      { key: "campaign_id", label: "Campaign ID" },
      { key: "conversion_id", label: "Conversion ID" },
    ],
  },
};
