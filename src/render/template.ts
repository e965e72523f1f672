import { Type } from "@fastify/type-provider-typebox";
import { type CardSize, cardSizeOf } from "./card-size.ts";

export const CardSizeSchema = Type.Union([Type.Literal("4x6"), Type.Literal("6x9"), Type.Literal("6x11")], {
  description:
    "Trim size in inches, landscape (the 6x9 card is 9 in wide); each file adds 0.125 in of bleed on every side.",
});

/** An automation's card template (automations.template); every part is optional. */
export const CardTemplate = Type.Object(
  {
    headline: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    message: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    size: Type.Optional(CardSizeSchema),
    offer: Type.Optional(
      Type.Union([Type.String({ maxLength: 200 }), Type.Null()], {
        description: "The contractor's own offer line, printed on the back; null or absent prints none.",
      }),
    ),
  },
  {
    additionalProperties: false,
    description: "The whole card: a field left out returns to its default (the offer to none).",
  },
);

export interface CardTemplateInput {
  headline?: string | undefined;
  message?: string | undefined;
  size?: CardSize | undefined;
  offer?: string | null | undefined;
}

export interface ResolvedTemplate {
  headline: string;
  message: string;
  /** The contractor's own offer line (the app's builder writes it); null prints none. */
  offer: string | null;
  size: CardSize;
}

export const DEFAULT_TEMPLATE: ResolvedTemplate = {
  headline: "A fresh look for {{street}}",
  // Short enough to fit a 4×6 card beside a logo, a two-line return address and a two-line offer
  // (docs/card-design.md): the card's front and back already name the business.
  message:
    "Hi {{client_name}}, we have been helping homes around {{city}}. Scan the code to see your home's page.",
  // No default promise: only an offer the contractor wrote prints.
  offer: null,
  size: "4x6",
};

/** The stored template over the defaults; anything unreadable in the column counts as absent. */
export function resolveTemplate(stored: unknown): ResolvedTemplate {
  const template = (stored && typeof stored === "object" ? stored : {}) as CardTemplateInput & {
    offer?: unknown;
  };
  const text = (value: unknown, fallback: string) => (typeof value === "string" && value ? value : fallback);
  return {
    headline: text(template.headline, DEFAULT_TEMPLATE.headline),
    message: text(template.message, DEFAULT_TEMPLATE.message),
    offer: typeof template.offer === "string" && template.offer.trim() ? template.offer.trim() : null,
    // A template stored under a legacy size name ("6x4.25") prints the card that replaced it.
    size: cardSizeOf(template.size) ?? DEFAULT_TEMPLATE.size,
  };
}
