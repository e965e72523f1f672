import type { Static, TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import {
  FLAT_ADDRESS_FIELDS,
  noAddressFound,
  type Payload,
  readAddressLine,
} from "../attribution/payload-fields.ts";
import {
  CUSTOMERS_BATCH_LIMIT,
  type CustomerEntry,
  keyedCustomerEntries,
  registerCustomers,
} from "../customers/customers.ts";
import { CustomersRequest, CustomersResult } from "../customers/schemas.ts";
import { invalidPayload } from "../errors.ts";
import { errorResponse } from "../http/error-responses.ts";
import { authOf } from "../http/guards.ts";
import type { Services } from "../services.ts";
import {
  ATTRIBUTION_BODY_LIMIT,
  ATTRIBUTION_ERROR_STYLE,
  attributionErrorResponses,
  attributionRateLimit,
} from "./attribution-errors.ts";
import { attributionSchemaErrors } from "./wrong-type-messages.ts";

/** The address completed with the city, state and zip sent beside it; raw when it is blank. */
const addressLineOf = (form: Payload, address: string, at = "") =>
  readAddressLine(form, FLAT_ADDRESS_FIELDS, at) ?? address;

function entriesOf(body: Static<typeof CustomersRequest>): CustomerEntry[] {
  const entries: CustomerEntry[] = (body.addresses ?? []).map((entry, index) => {
    if (typeof entry === "string") return { address: entry, field: `addresses[${index}]` };
    const field = `addresses[${index}].address`;
    if (entry.address === null) throw invalidPayload(`${field}: is required`);
    return {
      address: addressLineOf(entry, entry.address, `addresses[${index}].`),
      notes: entry.notes ?? undefined,
      field,
    };
  });
  if (body.address && body.address.trim() !== "")
    entries.push({
      address: addressLineOf(body, body.address),
      notes: body.notes ?? undefined,
      field: "address",
    });
  if (entries.length === 0 && !body.addresses) throw noAddressFound();
  // A body sending both forms is still one request: the single address counts against the
  // batch limit, or 1000 addresses and one more would pass it.
  if (entries.length > CUSTOMERS_BATCH_LIMIT) {
    throw invalidPayload(
      `addresses: must NOT have more than ${CUSTOMERS_BATCH_LIMIT} items (the address sent beside them counts as one)`,
    );
  }
  return entries;
}

export function registerCustomersRoute(app: FastifyInstance, services: Services): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    "/customers/webhook",
    {
      bodyLimit: ATTRIBUTION_BODY_LIMIT,
      config: {
        scope: "webhooks:inbound",
        errorStyle: ATTRIBUTION_ERROR_STYLE,
        orgRateLimit: attributionRateLimit("customers"),
      },
      schemaErrorFormatter: attributionSchemaErrors(CustomersRequest),
      schema: {
        operationId: "registerCustomers",
        summary: "Register existing customers (their addresses are suppressed from future mailings)",
        description:
          "Besides the 60-a-minute limit, reading a batch's addresses counts in the organization's address-reading time (ADDRESS_WORK_MS_PER_MINUTE of CPU a minute per process, two minutes' saved): text far costlier to read than an address can spend it, and the batch is then refused 429 with Retry-After (the seconds until a minute's budget is back, about 60) before anything is written. Ordinary batches at the limit never reach it.",
        body: CustomersRequest,
        response: {
          200: CustomersResult,
          ...attributionErrorResponses,
          422: errorResponse(
            "More than 1000 addresses, an entry that is not an address string or {address, notes?}, or an unusable address; the detail names it.",
            ["invalid_payload"],
          ),
        },
      },
    },
    async (request) => {
      const { orgId } = authOf(request);
      const entries = await keyedCustomerEntries(entriesOf(request.body), orgId, services.addressWork);
      return registerCustomers(services.db, orgId, entries, "webhook", services.clock.now());
    },
  );
}
