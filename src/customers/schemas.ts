import { Type } from "@fastify/type-provider-typebox";
import { localityFields, Nullable } from "../domain/crm-fields.ts";
import { CUSTOMERS_BATCH_LIMIT } from "./customers.ts";

// Request and response schemas of POST /api/v1/customers/webhook: the route, the MCP tool and the
// OpenAPI document use these.

const Address = Type.String({ minLength: 1, maxLength: 500, title: "address string" });
/** The single form's address: blank counts as missing (400 No address found), as on conversions. */
const SingleAddress = Type.String({ maxLength: 500 });
const Notes = Type.String({ maxLength: 2000 });

/**
 * A single `{address, notes?}` or a batch `{addresses: [...]}` whose entries are address strings
 * or `{address, notes?}` objects; either object may send the city, state and zip apart. Unknown
 * fields are accepted and ignored; null counts as absent (an entry object's address is required
 * all the same).
 */
export const CustomersRequest = Type.Object(
  {
    address: Nullable(SingleAddress),
    ...localityFields,
    notes: Nullable(Notes),
    addresses: Nullable(
      Type.Array(
        Type.Union([
          Address,
          Type.Object(
            {
              address: Type.Union([Address, Type.Null()], {
                description: "Required; null is refused (422 `address: is required`).",
              }),
              ...localityFields,
              notes: Nullable(Notes),
            },
            { title: "object {address, notes?}" },
          ),
        ]),
        { maxItems: CUSTOMERS_BATCH_LIMIT },
      ),
      `At most ${CUSTOMERS_BATCH_LIMIT} entries.`,
    ),
  },
  {
    $id: "CustomersRequest",
    additionalProperties: true,
    examples: [
      {
        addresses: [
          "742 Evergreen Terrace, Springfield, IL 62704",
          { address: "1313 Webfoot Walk, Duckburg, CA 90210", notes: "service plan since 2019" },
        ],
      },
    ],
  },
);

export const CustomersResult = Type.Object(
  {
    added: Type.Integer({ description: "Addresses new to the organization." }),
    total: Type.Integer({ description: "The organization's registered customer addresses after the call." }),
  },
  { $id: "CustomersResult" },
);
