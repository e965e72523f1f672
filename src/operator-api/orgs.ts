import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { OneLineText } from "../domain/one-line-text.ts";
import { notFound } from "../errors.ts";
import { SCOPES } from "../http/route-config.ts";
import { ErrorBody, LimitParam } from "../http/schemas.ts";
import { createOrganization, issueApiKey, listOrganizations, revokeApiKey } from "../orgs/organizations.ts";
import { listOrgKeys } from "../reports/app-reads.ts";
import type { Services } from "../services.ts";

export const OrgParams = Type.Object({ org_id: Type.String({ format: "uuid" }) });
export const IdParams = Type.Object({ id: Type.String({ format: "uuid" }) });

const OrgListQuery = Type.Object(
  {
    limit: LimitParam(1000),
    cursor: Type.Optional(
      Type.String({ maxLength: 200, description: "The previous page's `next_cursor`: the page after it." }),
    ),
  },
  { additionalProperties: false },
);

const OrgList = Type.Object({
  orgs: Type.Array(
    Type.Object({
      org_id: Type.String({ format: "uuid" }),
      org_name: Type.String(),
      billing_owner: Type.Boolean(),
      created_at: Type.String({ format: "date-time" }),
    }),
  ),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: "Pass as `cursor` for the next page; null on the last page.",
  }),
});

export function registerAdminOrgRoutes(app: FastifyInstance, services: Services): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    "/orgs",
    {
      schema: {
        hide: true,
        operationId: "adminListOrgs",
        summary: "Organizations, newest first, a page at a time (`limit`, then `cursor` = `next_cursor`)",
        querystring: OrgListQuery,
        response: { 200: OrgList, 401: ErrorBody, 422: ErrorBody },
      },
    },
    async (request) =>
      listOrganizations(services.db, {
        limit: Number(request.query.limit ?? 100),
        cursor: request.query.cursor,
      }),
  );

  r.post(
    "/orgs",
    {
      schema: {
        hide: true,
        body: Type.Object(
          {
            name: OneLineText({ minLength: 1, maxLength: 200 }),
            billing_owner: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => reply.code(201).send(await createOrganization(services.db, request.body)),
  );

  r.post(
    "/orgs/:org_id/keys",
    {
      // issueApiKey refuses a past expires_at (422) before it looks for the org (404).
      config: { bodyOptional: true, orgCheckedByHandler: true },
      schema: {
        hide: true,
        params: OrgParams,
        body: Type.Object(
          {
            name: Type.Optional(OneLineText({ maxLength: 200 })),
            scopes: Type.Optional(
              Type.Union([
                Type.Array(Type.Union(SCOPES.map((scope) => Type.Literal(scope))), { maxItems: 3 }),
                Type.Null(),
              ]),
            ),
            expires_at: Type.Optional(Type.String({ format: "date-time" })),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const issued = await issueApiKey(
        services.db,
        request.params.org_id,
        request.body,
        services.clock.now(),
      );
      request.log.info({ orgId: request.params.org_id, keyId: issued.id }, "operator issued an API key");
      return reply.code(201).send(issued);
    },
  );

  // An org's live keys (never the key itself): how an operator finds the id DELETE /keys/{id} takes.
  r.get("/orgs/:org_id/keys", { schema: { hide: true, params: OrgParams } }, async (request) => ({
    keys: await listOrgKeys(services.db, request.params.org_id),
  }));

  r.delete("/keys/:id", { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const revoked = await revokeApiKey(services.db, request.params.id, services.clock.now());
    if (!revoked) throw notFound("key not found or already revoked");
    services.keyStore.forget();
    request.log.info({ keyId: request.params.id }, "operator revoked an API key");
    return reply.code(204).send();
  });

  r.put(
    "/kill-switch",
    {
      schema: {
        hide: true,
        body: Type.Object({ paused: Type.Boolean() }, { additionalProperties: false }),
      },
    },
    async (request) => {
      const paused = await services.killSwitch.setPaused(request.body.paused);
      request.log.warn({ paused }, paused ? "operator paused automations" : "operator resumed automations");
      return { paused };
    },
  );

  r.get("/kill-switch", { schema: { hide: true } }, async () => ({
    paused: await services.killSwitch.isPaused(),
  }));
}
