import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { countCustomers, registerCustomers, searchCustomers } from "../../services/customers.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

const SHOWN = 100;

const Customer = Type.Object(
  {
    address: Type.String(),
    normalized_address: Type.String(),
    notes: Type.Union([Type.String(), Type.Null()]),
    source: Type.String({ description: "webhook, conversion, trigger or app." }),
    created_at: Type.String({ format: "date-time" }),
  },
  { additionalProperties: false },
);

/**
 * The suppression list: registered customers are never mailed. Adding goes through the developer
 * API's customers service (same parsing and validation); there is no removal, as the API has none.
 */
export function registerCustomerRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = ctx;

  r.get(
    "/customers",
    {
      schema: {
        operationId: "searchCustomers",
        summary: `Registered customers (suppressed from mailings), newest first, at most ${SHOWN}, optionally matching q`,
        tags: ["Customers"],
        querystring: Type.Object(
          { q: Type.Optional(Type.String({ maxLength: 200 })) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            { customers: Type.Array(Customer), total: Type.Integer() },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => {
      const { orgId } = sessionOf(request);
      return {
        customers: await searchCustomers(db, orgId, request.query.q, SHOWN),
        total: await countCustomers(db, orgId),
      };
    },
  );

  r.post(
    "/customers",
    {
      schema: {
        operationId: "addCustomer",
        summary: "Adds one customer address to the suppression list (it cannot be removed)",
        tags: ["Customers"],
        body: Type.Object(
          {
            address: Type.String({ minLength: 1, maxLength: 500 }),
            notes: Type.Optional(Type.String({ maxLength: 2000 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ added: Type.Integer(), total: Type.Integer() }, { additionalProperties: false }),
        },
      },
    },
    async (request) =>
      registerCustomers(
        db,
        sessionOf(request).orgId,
        [{ address: request.body.address, notes: request.body.notes, field: "address" }],
        "app",
      ),
  );
}
