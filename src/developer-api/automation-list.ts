import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { listAutomations } from "../automations/automations.ts";
import { SENTENCE_STYLE } from "../http/error-style.ts";
import { authOf } from "../http/guards.ts";
import { ErrorBody } from "../http/schemas.ts";
import type { Services } from "../services.ts";

export const AutomationList = Type.Object(
  {
    automations: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), enabled: Type.Boolean() })),
  },
  { title: "AutomationList" },
);

export function registerAutomationListRoute(app: FastifyInstance, services: Services): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    "/automation/list",
    {
      config: { scope: "webhooks:inbound", errorStyle: SENTENCE_STYLE },
      schema: {
        operationId: "listAutomations",
        summary: "List the organization's automations",
        response: { 200: AutomationList, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody, 503: ErrorBody },
      },
    },
    async (request) => {
      const automations = await listAutomations(services.db, authOf(request).orgId);
      return { automations: automations.map(({ id, name, enabled }) => ({ id, name, enabled })) };
    },
  );
}
