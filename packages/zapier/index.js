// @ts-check
/**
 * Porchlight's Zapier integration (docs/zapier.md): push it under your own Zapier account with
 * `zapier push` from this folder. It talks only to the developer API of the instance each
 * connection names.
 */
const { version: platformVersion } = require("zapier-platform-core");
const { version } = require("./package.json");
const authentication = require("./authentication.js");
const addCustomer = require("./creates/add-customer.js");
const recordWonDeal = require("./creates/record-won-deal.js");
const sendEvent = require("./creates/send-event.js");
const { addInstanceAndKey, readApiErrors } = require("./lib/api.js");
const newLead = require("./triggers/new-lead.js");

module.exports = {
  version,
  platformVersion,
  authentication,
  beforeRequest: [addInstanceAndKey],
  afterResponse: [readApiErrors],
  triggers: { [newLead.key]: newLead },
  creates: {
    [sendEvent.key]: sendEvent,
    [recordWonDeal.key]: recordWonDeal,
    [addCustomer.key]: addCustomer,
  },
};
