import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { findAutomation } from "../../automations/automations.ts";
import { OneLineText } from "../../domain/one-line-text.ts";
import { isUuid } from "../../domain/uuid.ts";
import { notFound, rateLimited } from "../../errors.ts";
import { addressCheckBeforePrint } from "../../mail-safety/settings.ts";
import {
  assertTestCardAudience,
  checkedRecipient,
  sendTestCard,
  type TestCardResult,
} from "../../trigger/test-card.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

/** A test card is a real card at a real price: a few an hour is what a person checking a design sends. */
export const TEST_CARDS = { bucket: "app-test-cards", limit: 20, windowSeconds: 3600 };

const tooManyTestCards = (secondsLeft: number) => {
  const minutes = Math.max(1, Math.ceil(secondsLeft / 60));
  return rateLimited(
    secondsLeft,
    `You have sent ${TEST_CARDS.limit} test cards this hour. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
  );
};

const TestCardBody = Type.Object(
  {
    request_id: Type.String({
      format: "uuid",
      description:
        "A UUID the app makes for this send: the same id sends one card (a double click, a retry after a lost answer).",
    }),
    recipient: Type.Object(
      {
        name: Type.Optional(OneLineText({ maxLength: 200, description: "Printed above the address." })),
        street: OneLineText({ minLength: 1, maxLength: 200 }),
        city: OneLineText({ minLength: 1, maxLength: 100 }),
        state: OneLineText({
          minLength: 1,
          maxLength: 50,
          description: "The USPS code or the state's name.",
        }),
        zip: Type.String({ pattern: "^\\s*[0-9]{5}(-[0-9]{4})?\\s*$", description: "5 digits, or ZIP+4." }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

const TestCardSent = Type.Object(
  {
    outcome: Type.Union([Type.Literal("queued"), Type.Literal("duplicate")], {
      description: "`queued`: the card is on its way; `duplicate`: this request_id sent it already.",
    }),
    piece_id: Type.String({
      description:
        "The card (GET /pieces/{id}); its pipeline job writes it within moments, so a read may answer 404 at first.",
    }),
    address: Type.String({ description: "The address the card goes to." }),
  },
  { additionalProperties: false },
);

export function registerTestCardRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const { db } = ctx;
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    "/automations/:id/test-card",
    {
      config: { appAccess: "owner" },
      schema: {
        operationId: "sendTestCard",
        summary:
          "Mails one real card of this automation to an address typed in the app, to see it before a CRM sends anything (owners only)",
        description:
          "The card goes through the pipeline and every mail-safety rule as an event's card does (hold window, approval, caps, the frequency cap, customers, do-not-mail, the address check) and costs what a card costs. Only this automation mails, on or off and whatever its filters; the card is never held out and gets no follow-ups. The record is kept as a sample of the automation's event type. A field the card could not print, or an address the organization's check before print would refuse, is 422 naming each field in `details.fields` (street, city, state, zip, name) with the reason. A neighbor automation answers 409 `neighbour_audience`. At most 20 cards queued an hour per organization (a repeat or a refusal does not count; 429 with Retry-After beyond). A repeated `request_id` answers the first send's card and address.",
        tags: ["Automations"],
        params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
        body: TestCardBody,
        response: { 202: TestCardSent },
      },
    },
    async (request, reply) => {
      const { orgId } = sessionOf(request);
      const automation = isUuid(request.params.id)
        ? await findAutomation(db, orgId, request.params.id)
        : undefined;
      if (!automation) throw notFound("automation not found");
      // Refusals that send nothing come first: only a card queued counts against the hour's cards.
      assertTestCardAudience(automation);
      await ctx.killSwitch.assertRunning();
      const addressCheck = await addressCheckBeforePrint(db, ctx.config.addressVerifier, orgId);
      const recipient = checkedRecipient(request.body.recipient, addressCheck);
      const counted = await ctx.limiter.countHit({ ...TEST_CARDS, id: orgId });
      if (!counted.decision.allowed) throw tooManyTestCards(counted.decision.secondsToWindowEnd);
      let sent: TestCardResult | undefined;
      try {
        sent = await sendTestCard(ctx, {
          orgId,
          automation,
          requestId: request.body.request_id.toLowerCase(),
          recipient,
        });
      } finally {
        if (sent?.outcome !== "queued") await counted.giveBack();
      }
      return reply.code(202).send(sent);
    },
  );
}
