import { Readable } from "node:stream";
import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { customersPage, doNotMailCsv, optedOutHomes } from "../../customers/app-customers.ts";
import {
  checkedCustomerKey,
  countCustomers,
  registerCustomers,
  removeCustomer,
} from "../../customers/customers.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

const PAGE_SIZE = 50;
const OPTED_OUT_SHOWN = 200;

const Customer = Type.Object(
  {
    address: Type.String(),
    normalized_address: Type.String(),
    notes: Type.Union([Type.String(), Type.Null()]),
    source: Type.String({
      description:
        "webhook, conversion, trigger, app (added with the one-address form), csv_upload (a CSV uploaded here) or lead_won (a lead marked won here).",
    }),
    created_at: Type.String({ format: "date-time" }),
  },
  { additionalProperties: false },
);

/**
 * The suppression list: registered customers are never mailed. Adding goes through the developer
 * API's customers service (same parsing and validation). Removing is the app's alone (owners): the
 * developer API's suppression "cannot be reversed through this interface", and a mistyped or sold
 * home would otherwise stay unmailable for good.
 */
export function registerCustomerRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, clock } = ctx;

  r.get(
    "/customers",
    {
      schema: {
        operationId: "searchCustomers",
        summary: `Registered customers (suppressed from mailings), newest first, ${PAGE_SIZE} a page (keyset cursor), optionally matching q`,
        tags: ["Customers"],
        querystring: Type.Object(
          {
            q: Type.Optional(Type.String({ maxLength: 200 })),
            cursor: Type.Optional(
              Type.String({ maxLength: 2000, description: "next_cursor of the page before." }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            {
              customers: Type.Array(Customer),
              total: Type.Integer(),
              next_cursor: Type.Union([Type.String(), Type.Null()]),
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => {
      const { orgId } = sessionOf(request);
      const page = await customersPage(db, orgId, { ...request.query, limit: PAGE_SIZE });
      return { ...page, total: await countCustomers(db, orgId) };
    },
  );

  r.get(
    "/customers/do-not-mail.csv",
    {
      schema: {
        hide: true,
        summary: "Every home never mailed (customers, then opted-out homes) as CSV (formula-safe cells)",
      },
    },
    async (request, reply) =>
      reply
        .type("text/csv; charset=utf-8")
        .header("content-disposition", 'attachment; filename="do-not-mail.csv"')
        .send(Readable.from(doNotMailCsv(db, sessionOf(request).orgId))),
  );

  r.get(
    "/customers/opted-out",
    {
      schema: {
        operationId: "listOptedOutHomes",
        summary: `Homes that opted out of mail on a landing page (the do-not-mail list), newest first, at most ${OPTED_OUT_SHOWN}`,
        tags: ["Customers"],
        querystring: Type.Object(
          { q: Type.Optional(Type.String({ maxLength: 200 })) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            {
              homes: Type.Array(
                Type.Object(
                  {
                    normalized_address: Type.String(),
                    address: Type.Union([Type.String(), Type.Null()]),
                    opted_out_at: Type.String({ format: "date-time" }),
                    piece_id: Type.Union([Type.String({ format: "uuid" }), Type.Null()]),
                    campaign_name: Type.Union([Type.String(), Type.Null()]),
                    automation_name: Type.Union([Type.String(), Type.Null()]),
                  },
                  { additionalProperties: false },
                ),
              ),
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => ({
      homes: await optedOutHomes(db, sessionOf(request).orgId, {
        q: request.query.q,
        limit: OPTED_OUT_SHOWN,
      }),
    }),
  );

  r.post(
    "/customers",
    {
      schema: {
        operationId: "addCustomer",
        summary:
          "Adds one customer address to the suppression list; the home's cards waiting to be mailed are stopped",
        tags: ["Customers"],
        body: Type.Object(
          {
            address: Type.String({ minLength: 1, maxLength: 500 }),
            notes: Type.Optional(Type.String({ maxLength: 2000 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            {
              added: Type.Integer(),
              total: Type.Integer(),
              stopped_cards: Type.Integer({
                description:
                  "Cards that were waiting to be mailed to this home (held, awaiting approval, over a cap, or follow-up cards scheduled for a later day) and now never will be.",
              }),
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => {
      const entry = { address: request.body.address, notes: request.body.notes, field: "address" };
      const key = checkedCustomerKey(entry, { wholeHome: true });
      const orgId = sessionOf(request).orgId;
      const { added, total, stoppedCards } = await registerCustomers(
        db,
        orgId,
        [{ ...entry, key }],
        "app",
        clock.now(),
      );
      return { added, total, stopped_cards: stoppedCards };
    },
  );

  r.delete(
    "/customers",
    {
      config: { appAccess: "owner" },
      schema: {
        operationId: "removeCustomer",
        summary:
          "Takes one home off the customers list (owners only): automations may mail it again. Cards stopped when it was added stay stopped; the CRM reporting it again puts it back. Removing a home not on the list answers removed: false.",
        tags: ["Customers"],
        querystring: Type.Object(
          {
            normalized_address: Type.String({
              minLength: 1,
              maxLength: 2000,
              description: "The customer's normalized_address, as the list gives it.",
            }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            { removed: Type.Boolean(), total: Type.Integer() },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => {
      const { orgId, userId } = sessionOf(request);
      const removed = await removeCustomer(db, orgId, request.query.normalized_address);
      if (removed) request.log.info({ orgId, userId }, "app user took a home off the customers list");
      return { removed, total: await countCustomers(db, orgId) };
    },
  );
}
