import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { AppError, notFound } from "../../errors.ts";
import {
  findOrganizationLogo,
  getOrganizationProfile,
  saveOrganizationLogo,
  updateOrganizationProfile,
} from "../../orgs/organization-profile.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

export const LOGO_MAX_BYTES = 2 * 1024 * 1024;
/** A logo is stored at most this many pixels on its longer side (plenty for a card and a page). */
const LOGO_MAX_SIDE = 1200;
const LOGO_TYPES = ["image/png", "image/jpeg", "image/svg+xml"];

const ReturnAddress = Type.Object(
  {
    street: Type.String({ minLength: 1, maxLength: 200 }),
    city: Type.String({ maxLength: 100 }),
    state: Type.String({ maxLength: 50 }),
    postal_code: Type.String({ maxLength: 20 }),
  },
  { additionalProperties: false },
);
const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const profileFields = {
  business_name: nullable(Type.String({ maxLength: 200 })),
  phone: nullable(Type.String({ maxLength: 40, pattern: "^[0-9+().\\- ]*$" })),
  website: nullable(Type.String({ maxLength: 200 })),
  return_address: Type.Union([ReturnAddress, Type.Null()]),
  brand_color: nullable(Type.String({ pattern: "^#[0-9a-fA-F]{6}$" })),
  cost_per_card_cents: Type.Union([Type.Integer({ minimum: 0, maximum: 100_000 }), Type.Null()]),
  offer: nullable(Type.String({ maxLength: 200 })),
};
const ProfileView = Type.Object(
  {
    org_id: Type.String(),
    name: Type.String(),
    ...profileFields,
    has_logo: Type.Boolean(),
    logo_updated_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  },
  { additionalProperties: false },
);

/**
 * An SVG logo is only rasterised, never served: still, refuse what could reach outside the
 * document (entities, external references) before the rasteriser sees it.
 */
function assertSelfContainedSvg(svg: Buffer): void {
  const text = svg.toString("utf8");
  const external = /<!DOCTYPE|<!ENTITY|(?:xlink:)?href\s*=\s*["'](?!#|data:image\/(?:png|jpeg);)/i;
  if (external.test(text)) {
    throw new AppError(
      422,
      "invalid_payload",
      "The SVG logo refers to other files or entities; export it self-contained.",
    );
  }
}

/** Any accepted upload becomes a PNG of bounded size, metadata stripped: what we serve is what we drew. */
async function reencodeLogo(body: Buffer, contentType: string): Promise<Buffer> {
  if (contentType === "image/svg+xml") assertSelfContainedSvg(body);
  const { default: sharp } = await import("sharp");
  try {
    return await sharp(body, { limitInputPixels: 40_000_000, density: 144 })
      .resize({ width: LOGO_MAX_SIDE, height: LOGO_MAX_SIDE, fit: "inside", withoutEnlargement: true })
      .png()
      .toBuffer();
  } catch {
    throw new AppError(422, "invalid_payload", "The logo is not a readable PNG, JPEG or SVG image.");
  }
}

export function registerOrganizationRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, clock } = ctx;
  app.addContentTypeParser(
    LOGO_TYPES,
    { parseAs: "buffer", bodyLimit: LOGO_MAX_BYTES },
    (_request, body, done) => done(null, body),
  );

  r.get(
    "/organization",
    {
      schema: {
        operationId: "getOrganization",
        summary: "The organization's profile, printed on cards and landing pages",
        tags: ["Settings"],
        response: { 200: ProfileView },
      },
    },
    async (request) => getOrganizationProfile(db, sessionOf(request).orgId),
  );

  r.patch(
    "/organization",
    {
      config: { appAccess: "owner" },
      schema: {
        operationId: "updateOrganization",
        summary: "Changes the profile (owners only); null clears a field",
        tags: ["Settings"],
        body: Type.Partial(Type.Object(profileFields), { additionalProperties: false, minProperties: 1 }),
        response: { 200: ProfileView },
      },
    },
    async (request) => updateOrganizationProfile(db, sessionOf(request).orgId, request.body, clock.now()),
  );

  r.put(
    "/organization/logo",
    {
      config: { appAccess: "owner" },
      bodyLimit: LOGO_MAX_BYTES,
      schema: {
        operationId: "uploadLogo",
        summary: `Uploads the logo as the request body (image/png, image/jpeg or image/svg+xml, at most ${LOGO_MAX_BYTES} bytes); stored re-encoded as PNG`,
        tags: ["Settings"],
        response: { 200: ProfileView },
      },
    },
    async (request) => {
      const contentType = String(request.headers["content-type"] ?? "")
        .split(";")[0]!
        .trim()
        .toLowerCase();
      if (!LOGO_TYPES.includes(contentType) || !Buffer.isBuffer(request.body)) {
        throw new AppError(
          415,
          "unsupported_media_type",
          "Send the logo as image/png, image/jpeg or image/svg+xml.",
        );
      }
      const { orgId } = sessionOf(request);
      await saveOrganizationLogo(db, orgId, await reencodeLogo(request.body, contentType), clock.now());
      return getOrganizationProfile(db, orgId);
    },
  );

  r.get(
    "/organization/logo",
    {
      schema: {
        operationId: "getLogo",
        summary: "The logo as PNG",
        tags: ["Settings"],
        response: { 200: Type.Unknown({ description: "image/png" }) },
      },
    },
    async (request, reply) => {
      const logo = await findOrganizationLogo(db, sessionOf(request).orgId);
      if (!logo) throw notFound("no logo uploaded");
      return reply.type("image/png").header("content-security-policy", "default-src 'none'").send(logo);
    },
  );
}
