import { Type } from "@fastify/type-provider-typebox";
import { IgnoredOrgId } from "../domain/ignored-org-id.ts";
import { MAX_TARGET_URL_LENGTH } from "./subscriptions.ts";

// Request and response schemas of the subscribe, unsubscribe and rotate endpoints: the routes,
// the MCP tools and the OpenAPI document use these.

export const SubscribeRequest = Type.Object(
  {
    target_url: Type.String({
      maxLength: MAX_TARGET_URL_LENGTH,
      description: `Public https URL receiving lead.created; at most ${MAX_TARGET_URL_LENGTH} characters, also once normalized (a non-ASCII character is percent-encoded to up to 12).`,
    }),
    event: Type.Optional(
      Type.Union([Type.String({ maxLength: 64 }), Type.Null()], {
        description: 'Only "lead.created" (the default; null means the default).',
      }),
    ),
    org_id: IgnoredOrgId,
  },
  {
    additionalProperties: false,
    title: "SubscribeRequest",
    examples: [{ target_url: "https://crm.example.com/hooks/porchlight", event: "lead.created" }],
  },
);

export const RotateRequest = Type.Object(
  {
    id: Type.Optional(
      Type.Union([Type.String({ maxLength: 64 }), Type.Null()], {
        description: "The subscription's id… (null: absent)",
      }),
    ),
    target_url: Type.Optional(
      Type.Union([Type.String({ maxLength: MAX_TARGET_URL_LENGTH }), Type.Null()], {
        description: `…or its URL (normalized as on subscribe; over ${MAX_TARGET_URL_LENGTH} characters once normalized is 422; null: absent)`,
      }),
    ),
    event: Type.Optional(
      Type.Union([Type.String({ maxLength: 64 }), Type.Null()], {
        description: 'With target_url; default "lead.created" (also when null).',
      }),
    ),
    org_id: IgnoredOrgId,
  },
  {
    additionalProperties: false,
    title: "RotateRequest",
    examples: [
      { id: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f" },
      { target_url: "https://crm.example.com/hooks/porchlight" },
    ],
  },
);

export const UnsubscribeQuery = Type.Object(
  {
    id: Type.Optional(Type.String({ maxLength: 64 })),
    target_url: Type.Optional(
      Type.String({
        maxLength: MAX_TARGET_URL_LENGTH,
        description: `Normalized as on subscribe; over ${MAX_TARGET_URL_LENGTH} characters once normalized is 422.`,
      }),
    ),
    event: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { title: "UnsubscribeQuery" },
);

export const Unsubscribed = Type.Object(
  {
    id: Type.String(),
    target_url: Type.String(),
    event: Type.String(),
    deleted: Type.Literal(true),
  },
  { title: "Unsubscribed" },
);
