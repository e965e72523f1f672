// @ts-check
/**
 * Add Customer: an existing customer's address (POST /api/v1/customers/webhook), so no
 * automation mails them a postcard meant for new business.
 */

/**
 * @param {any} z
 * @param {any} bundle
 */
async function perform(z, bundle) {
  const { address, notes } = bundle.inputData;
  const response = await z.request({
    method: "POST",
    url: "/api/v1/customers/webhook",
    body: { address: String(address), ...(notes ? { notes: String(notes) } : {}) },
  });
  return response.data;
}

module.exports = {
  key: "add_customer",
  noun: "Customer",
  display: {
    label: "Add Customer",
    description:
      "Registers an existing customer's address, so Porchlight never mails them a card meant for new customers.",
  },
  operation: {
    perform,
    inputFields: [
      { key: "address", label: "Address", required: true, helpText: "The customer's full address." },
      { key: "notes", label: "Notes" },
    ],
    sample: { added: 1, total: 1 },
    outputFields: [
      { key: "added", type: "integer", label: "Added" },
      { key: "total", type: "integer", label: "Customers in total" },
    ],
  },
};
