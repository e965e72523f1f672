import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { OneLineText } from "../../domain/one-line-text.ts";
import { notFound } from "../../errors.ts";
import { SCOPES } from "../../http/route-config.ts";
import { issueApiKey, revokeOrgKey } from "../../orgs/organizations.ts";
import { listEventTypes, listOrgKeys, listSamples } from "../../reports/app-reads.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

const IsoDate = Type.String({ format: "date-time" });
const NullableDate = Type.Union([IsoDate, Type.Null()]);
const ScopeSchema = Type.Union(SCOPES.map((scope) => Type.Literal(scope)));
const KeyView = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    scopes: Type.Union([Type.Array(Type.String()), Type.Null()]),
    created_at: IsoDate,
    expires_at: NullableDate,
    last_used_at: NullableDate,
    demo: Type.Boolean({
      description:
        "The key the first start made for its demo organization, printed once in the server's console for trying the API.",
    }),
  },
  { additionalProperties: false },
);
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export function registerDeveloperRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, clock } = ctx;

  r.get(
    "/event-types",
    {
      schema: {
        operationId: "listEventTypes",
        summary:
          "Event types the CRM sent, newest first; `bound` is false when no enabled automation listens to one",
        tags: ["Developers"],
        response: {
          200: Type.Array(
            Type.Object(
              {
                event_type: Type.String(),
                object_type: Type.Union([Type.String(), Type.Null()]),
                last_seen_at: IsoDate,
                count: Type.Integer({
                  description:
                    "Events of this type received (live ones; a dry run is not kept). The samples keep the newest 25.",
                }),
                bound: Type.Boolean(),
                only_test_cards: Type.Boolean({
                  description:
                    "Every kept sample of this type is a test card's, sent from an automation in the app (record id `test-card-…`): no CRM has sent one yet.",
                }),
                turned_off_automation: Type.Union(
                  [
                    Type.Object(
                      { id: Type.String({ format: "uuid" }), name: Type.String() },
                      { additionalProperties: false },
                    ),
                    Type.Null(),
                  ],
                  {
                    description:
                      "When no enabled automation listens: one that listens but is turned off (switch it on instead of building another); null otherwise.",
                  },
                ),
                without_address: Type.Integer({
                  description:
                    "Events of this type whose record named no address (no street with a city or ZIP), so the automation listening made no card.",
                }),
                last_without_address_at: Type.Union([IsoDate, Type.Null()], {
                  description: "When the newest of those arrived; null when none did.",
                }),
              },
              { additionalProperties: false },
            ),
          ),
        },
      },
    },
    async (request) => {
      await ctx.triggerStore.flushSamples();
      return listEventTypes(db, sessionOf(request).orgId);
    },
  );

  r.get(
    "/event-samples",
    {
      schema: {
        operationId: "listEventSamples",
        summary: "Recent events as received (the newest 25 per type), newest first",
        tags: ["Developers"],
        querystring: Type.Object(
          { event_type: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Array(
            Type.Object(
              {
                id: Type.String(),
                event_type: Type.String(),
                object_type: Type.Union([Type.String(), Type.Null()]),
                received_at: IsoDate,
                record: Type.Record(Type.String(), Type.Unknown()),
                property_keys: Type.Array(Type.String()),
                without_address: Type.Boolean({
                  description: "The record named no address, so the automation listening made no card.",
                }),
              },
              { additionalProperties: false },
            ),
          ),
        },
      },
    },
    async (request) => {
      await ctx.triggerStore.flushSamples();
      return listSamples(db, sessionOf(request).orgId, request.query.event_type);
    },
  );

  r.get(
    "/keys",
    {
      config: { appAccess: "owner" },
      schema: {
        operationId: "listKeys",
        summary: "The organization's live API keys, with last use (owners only)",
        tags: ["Developers"],
        response: { 200: Type.Object({ keys: Type.Array(KeyView) }, { additionalProperties: false }) },
      },
    },
    async (request) => ({ keys: await listOrgKeys(db, sessionOf(request).orgId) }),
  );

  r.post(
    "/keys",
    {
      config: { appAccess: "owner" },
      schema: {
        operationId: "createKey",
        summary: "Creates an API key; the key itself is in this answer only (owners only)",
        tags: ["Developers"],
        body: Type.Object(
          {
            name: OneLineText({ minLength: 1, maxLength: 200 }),
            scopes: Type.Optional(Type.Union([Type.Array(ScopeSchema, { maxItems: 3 }), Type.Null()])),
            expires_at: Type.Optional(IsoDate),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object(
            {
              id: Type.String(),
              key: Type.String(),
              name: Type.String(),
              scopes: Type.Union([Type.Array(Type.String()), Type.Null()]),
              expires_at: NullableDate,
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request, reply) => {
      const { orgId, userId } = sessionOf(request);
      const issued = await issueApiKey(db, orgId, request.body, clock.now());
      request.log.info({ orgId, keyId: issued.id, userId }, "app user issued an API key");
      return reply.code(201).send({ ...issued, name: request.body.name });
    },
  );

  r.delete(
    "/keys/:id",
    {
      config: { appAccess: "owner" },
      schema: {
        operationId: "revokeKey",
        summary: "Revokes an API key at once (owners only)",
        tags: ["Developers"],
        params: IdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const { orgId, userId } = sessionOf(request);
      if (!(await revokeOrgKey(db, orgId, request.params.id, clock.now()))) throw notFound("key not found");
      ctx.keyStore.forget();
      request.log.info({ orgId, keyId: request.params.id, userId }, "app user revoked an API key");
      return reply.code(204).send(null);
    },
  );
}
