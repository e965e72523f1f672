// @ts-check
/**
 * A connection is one Porchlight instance (it is self-hosted: its public address) and one API
 * key of the contractor's organization, tested with GET /api/v1/me.
 */
module.exports = {
  type: "custom",
  fields: [
    {
      key: "base_url",
      label: "Porchlight address",
      required: true,
      type: "string",
      helpText:
        "The public address of your Porchlight, as your browser shows it without `/app`, e.g. `https://mail.example-roofing.com`.",
    },
    {
      key: "api_key",
      label: "API key",
      required: true,
      type: "password",
      helpText:
        "A key of your organization (it starts with `ak_`): in Porchlight, Developers → API keys. It needs the scopes `events:write` and `webhooks:inbound`, or none (unrestricted).",
    },
  ],
  /** @param {any} z */
  test: async (z) => (await z.request({ url: "/api/v1/me" })).data,
  connectionLabel: "{{org_name}}",
};
