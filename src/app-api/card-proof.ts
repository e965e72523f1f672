/**
 * The card as the app's editors (the automation builder, a reactivation mailing) edit it: its
 * schema, its merge-field check, the template column it is stored as, and its proof drawn by the
 * pipeline's renderer. One place, so both editors refuse and draw a card alike.
 */
import { type Static, Type } from "@fastify/type-provider-typebox";
import { invalidFields } from "../errors.ts";
import { placeholderImage } from "../imagery/placeholder.ts";
import { type FieldFit, overflowProblem } from "../render/card-fit.ts";
import type { CardContent } from "../render/card-layout.ts";
import type { CardSender } from "../render/compose.ts";
import { templateProblems } from "../render/merge.ts";
import { PROOF_DPI } from "../render/proof-sides.ts";
import type { Renderer } from "../render/renderer.ts";
import { CardSizeSchema, type ResolvedTemplate } from "../render/template.ts";
import type { ProofCache } from "./proof-cache.ts";

/** The card an editor sends. `offer` is the contractor's own line; none by default. */
export const CardTemplate = Type.Object(
  {
    headline: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    message: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    offer: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
    card_size: Type.Optional(CardSizeSchema),
  },
  { additionalProperties: false },
);
export type CardTemplate = Static<typeof CardTemplate>;

/** A proof's two sides. */
export const ProofView = Type.Object(
  {
    front_png: Type.String(),
    back_png: Type.String(),
    front_text: Type.Array(Type.String(), { description: "The front's lines of text, as drawn." }),
    back_text: Type.Array(Type.String(), { description: "The back's lines of text, as drawn." }),
  },
  { additionalProperties: false },
);

/** Merge-field mistakes as field errors (`template.headline`, …) the card editor puts back on its inputs. */
export function assertTemplate(template: CardTemplate | undefined): void {
  if (!template) return;
  const fields: Record<string, string> = {};
  for (const field of ["headline", "message", "offer"] as const) {
    const text = template[field];
    const problems = typeof text === "string" ? templateProblems(text) : [];
    if (problems.length > 0) fields[`template.${field}`] = problems.join("; ");
  }
  throwFieldErrors(fields);
}

function throwFieldErrors(fields: Record<string, string>): void {
  const error = invalidFields(fields);
  if (error) throw error;
}

/** One field's fit as the builder shows it live. */
export const FieldFitView = Type.Object(
  {
    field: Type.Union([Type.Literal("headline"), Type.Literal("message"), Type.Literal("offer")]),
    characters: Type.Integer({ description: "The field's characters as written." }),
    fitting: Type.Integer({ description: "How many of them fit the card, merge fields at their longest." }),
    problem: Type.String(),
  },
  { additionalProperties: false },
);

export const CardFitView = Type.Object(
  {
    fits: Type.Boolean(),
    overflow: Type.Array(FieldFitView, {
      description: "The fields that do not fit; empty when the card fits.",
    }),
  },
  { additionalProperties: false },
);

/** The fit of a template on its card for this sender (render/card-fit.ts has the rule), laid out on a render thread. */
export async function cardFitView(
  renderer: Renderer,
  template: ResolvedTemplate,
  sender: CardSender,
): Promise<Static<typeof CardFitView>> {
  const overflow = (await renderer.fit(template, sender)).map((fit: FieldFit) => ({
    ...fit,
    problem: overflowProblem(fit, template.size),
  }));
  return { fits: overflow.length === 0, overflow };
}

/**
 * Refuses (422, each field as `template.<field>`) a template whose text the card would cut:
 * saved, it would print something other than what the contractor approved.
 */
export async function assertCardFits(
  renderer: Renderer,
  template: ResolvedTemplate,
  sender: CardSender,
): Promise<void> {
  const { overflow } = await cardFitView(renderer, template, sender);
  throwFieldErrors(Object.fromEntries(overflow.map((fit) => [`template.${fit.field}`, fit.problem])));
}

/**
 * The template column the pipeline reads (headline, message, size, offer): `patch` laid over a
 * stored one (an automation's edit), or over nothing (a new card). An empty offer prints none.
 */
export function storedTemplate(previous: unknown, patch: CardTemplate): Record<string, unknown> {
  const current = (previous && typeof previous === "object" ? previous : {}) as Record<string, unknown>;
  const next: Record<string, unknown> = { ...current };
  if (patch.headline !== undefined) next.headline = patch.headline;
  if (patch.message !== undefined) next.message = patch.message;
  if (patch.card_size !== undefined) next.size = patch.card_size;
  if (patch.offer !== undefined) next.offer = patch.offer?.trim() ? patch.offer.trim() : null;
  return next;
}

/** Proofs always draw the offline placeholder: no imagery request (or its cost) per keystroke. */
export function proofHomeImage(address: {
  line: string;
  street: string | null;
  city: string | null;
}): CardContent["homeImage"] {
  const image = placeholderImage({
    address: address.line,
    street: address.street,
    city: address.city,
    latitude: null,
    longitude: null,
  });
  return { bytes: image.bytes, streetSign: image.streetSign };
}

/** Front and back as PNG data: URLs, drawn off the event loop by the renderer's pool unless cached. */
export function drawProof(
  renderer: Renderer,
  proofs: ProofCache,
  card: CardContent,
): Promise<Static<typeof ProofView>> {
  return proofs.proofOf(card, (drawn) => drawSides(renderer, drawn));
}

async function drawSides(renderer: Renderer, card: CardContent): Promise<Static<typeof ProofView>> {
  const { front, back, text } = await renderer.sides(card, { dpi: PROOF_DPI });
  return {
    front_png: dataUrl(front),
    back_png: dataUrl(back),
    front_text: text.front,
    back_text: text.back,
  };
}

const dataUrl = (png: Buffer) => `data:image/png;base64,${png.toString("base64")}`;
