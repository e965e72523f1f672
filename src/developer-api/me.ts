import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { forbidden } from "../errors.ts";
import { errorResponse } from "../http/error-responses.ts";
import { SENTENCE_STYLE } from "../http/error-style.ts";
import { authOf } from "../http/guards.ts";
import { ErrorBody } from "../http/schemas.ts";

export const MeResponse = Type.Object(
  { org_id: Type.String(), org_name: Type.String() },
  { title: "OrganizationIdentity" },
);

export function registerMeRoute(app: FastifyInstance): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    "/me",
    {
      config: { scope: "webhooks:inbound", errorStyle: SENTENCE_STYLE },
      schema: {
        operationId: "getMe",
        summary: "Identify the key's organization",
        response: {
          200: MeResponse,
          401: ErrorBody,
          403: errorResponse(
            "The key lacks webhooks:inbound, resolves to no organization, or its organization is not tied to a billing owner.",
            ["Unauthorized"],
          ),
          429: ErrorBody,
          503: ErrorBody,
        },
      },
    },
    async (request) => {
      const auth = authOf(request);
      // A key whose organization has no billing owner cannot identify it (spec: GET /api/v1/me).
      if (!auth.billingOwner) throw forbidden();
      return { org_id: auth.orgId, org_name: auth.orgName };
    },
  );
}
