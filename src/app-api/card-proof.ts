/**
 * The card as the app's editors (the automation builder, a reactivation mailing) edit it: its
 * schema, its merge-field check, the template column it is stored as, and its proof drawn by the
 * pipeline's renderer. One place, so both editors refuse and draw a card alike.
 */
import { type Static, Type } from "@fastify/type-provider-typebox";
import { AppError } from "../errors.ts";
import { placeholderImage } from "../imagery/placeholder.ts";
import type { CardContent } from "../render/card-layout.ts";
import { templateProblems } from "../render/merge.ts";
import { splitProofSheet } from "../render/proof-sides.ts";
import type { Renderer } from "../render/renderer.ts";
import { CardSizeSchema } from "../render/template.ts";

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
  { front_png: Type.String(), back_png: Type.String() },
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
  const [first] = Object.entries(fields);
  if (!first) return;
  const error = new AppError(422, "invalid_payload", `${first[0]}: ${first[1]}`) as AppError & {
    details?: unknown;
  };
  error.details = { fields };
  throw error;
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

/** Front and back as PNG data: URLs, drawn off the event loop by the renderer's pool. */
export async function drawProof(renderer: Renderer, card: CardContent): Promise<Static<typeof ProofView>> {
  const [front, back] = await splitProofSheet(await renderer.proof(card, "png"));
  return { front_png: dataUrl(front!), back_png: dataUrl(back!) };
}

const dataUrl = (png: Buffer) => `data:image/png;base64,${png.toString("base64")}`;
