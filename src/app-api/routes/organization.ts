import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { OneLineText } from "../../domain/one-line-text.ts";
import { AppError, invalidFields, notFound } from "../../errors.ts";
import { enforceRateLimit } from "../../limits/enforce-rate-limit.ts";
import { loadCardSender } from "../../orgs/card-sender.ts";
import {
  findOrganizationLogo,
  getOrganizationProfile,
  type OrganizationProfile,
  removeOrganizationLogo,
  saveOrganizationLogo,
  updateOrganizationProfile,
} from "../../orgs/organization-profile.ts";
import { profilePatchProblems } from "../../orgs/profile-checks.ts";
import { sweepCardImages } from "../../pieces/draw-ahead.ts";
import type { CardSender } from "../../render/compose.ts";
import type { Renderer } from "../../render/renderer.ts";
import { DEFAULT_TEMPLATE } from "../../render/template.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

export const LOGO_MAX_BYTES = 2 * 1024 * 1024;
const LOGO_TYPES = ["image/png", "image/jpeg", "image/svg+xml"];
/**
 * A logo is stored at most 1200 pixels on its longer side (plenty for a card and a page); one
 * takes at most 1.5 s to draw (a real logo takes well under 0.2 s), and at most 8 wait for it.
 */
export const LOGO_RASTERIZING = { maxSide: 1200, timeLimitMs: 1500, maxWaiting: 8 };
/** Logo uploads an organization may make in an hour: each one costs a rasteriser's time. */
export const LOGO_UPLOADS_PER_HOUR = 20;
const LOGO_UPLOADS = { bucket: "app-logo-upload", limit: LOGO_UPLOADS_PER_HOUR, windowSeconds: 3600 };

const ReturnAddress = Type.Object(
  {
    street: OneLineText({ minLength: 1, maxLength: 200 }),
    city: OneLineText({ maxLength: 100 }),
    state: OneLineText({ maxLength: 50 }),
    postal_code: OneLineText({ maxLength: 20 }),
  },
  { additionalProperties: false },
);
const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const profileFields = {
  business_name: nullable(OneLineText({ maxLength: 200 })),
  phone: nullable(Type.String({ maxLength: 40, pattern: "^[0-9+().\\- ]*$" })),
  website: nullable(OneLineText({ maxLength: 200 })),
  return_address: Type.Union([ReturnAddress, Type.Null()]),
  brand_color: nullable(Type.String({ pattern: "^#[0-9a-fA-F]{6}$" })),
  cost_per_card_cents: Type.Union([Type.Integer({ minimum: 0, maximum: 100_000 }), Type.Null()]),
  offer: nullable(OneLineText({ maxLength: 200 })),
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

const unsupportedLogoType = () =>
  new AppError(415, "unsupported_media_type", "Send the logo as image/png, image/jpeg or image/svg+xml.");

/** The request's media type when it is one a logo may have; 415 otherwise. */
function logoContentType(request: FastifyRequest): string {
  const contentType = String(request.headers["content-type"] ?? "")
    .split(";")[0]!
    .trim()
    .toLowerCase();
  if (!LOGO_TYPES.includes(contentType)) throw unsupportedLogoType();
  return contentType;
}

/**
 * An offer is checked when it changes, or when a profile value it names does ({{org_name}}, {{phone}},
 * {{website}}): a save of other fields (the form sends them all) never fails for an offer saved
 * before the check existed.
 */
function offerToCheck(before: OrganizationProfile, after: OrganizationProfile): boolean {
  if (!after.offer) return false;
  if (after.offer !== before.offer) return true;
  const names = (field: string) => new RegExp(`\\{\\{\\s*${field}\\s*[|}]`).test(after.offer ?? "");
  return (
    (names("org_name") && (after.business_name !== before.business_name || after.name !== before.name)) ||
    (names("phone") && after.phone !== before.phone) ||
    (names("website") && after.website !== before.website)
  );
}

/**
 * An offer in Settings prints on every card of an automation without its own: refused (422 on
 * `offer`, the transaction rolled back) when the smallest card's two offer lines cannot hold it, or
 * no new automation could be saved and the saved ones would print it cut.
 */
async function assertOfferFits(renderer: Renderer, sender: CardSender): Promise<void> {
  const offer = (await renderer.fit(DEFAULT_TEMPLATE, sender)).find((fit) => fit.field === "offer");
  if (!offer) return;
  throw invalidFields({
    offer: `Too long for a ${DEFAULT_TEMPLATE.size} card: ${offer.fitting} of its ${offer.characters} characters fit its two offer lines (a record's merge fields counted at their longest)`,
  });
}

export function registerOrganizationRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, clock, limiter, logoRasterizer } = ctx;
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
        summary:
          "Changes the profile (owners only); null clears a field. A return address must be whole (street, city, state, ZIP) and pass the address check cards meet before print, a website must be a host name with a dot (https:// optional), and an offer must fit a 4x6 card's two offer lines: else 422 naming each field (`details.fields`)",
        tags: ["Settings"],
        body: Type.Partial(Type.Object(profileFields), { additionalProperties: false, minProperties: 1 }),
        response: { 200: ProfileView },
      },
    },
    async (request) => {
      const { orgId } = sessionOf(request);
      const refused = invalidFields(profilePatchProblems(request.body));
      if (refused) throw refused;
      // The waiting cards print the profile: their kept images are drawn again ahead of the next look.
      return db.transaction(async (tx) => {
        const before = await getOrganizationProfile(tx, orgId);
        const profile = await updateOrganizationProfile(tx, orgId, request.body, clock.now());
        if (offerToCheck(before, profile))
          await assertOfferFits(ctx.renderer, await loadCardSender(tx, orgId));
        await sweepCardImages(tx, orgId, clock.now());
        return profile;
      });
    },
  );

  r.put(
    "/organization/logo",
    {
      config: { appAccess: "owner" },
      bodyLimit: LOGO_MAX_BYTES,
      // Before any parser runs: another type is a 415 here, not the app API's JSON-parser answer.
      preParsing: async (request) => {
        logoContentType(request);
      },
      schema: {
        operationId: "uploadLogo",
        summary: `Uploads the logo as the request body (image/png, image/jpeg or image/svg+xml, at most ${LOGO_MAX_BYTES} bytes); stored re-encoded as PNG`,
        tags: ["Settings"],
        response: { 200: ProfileView },
      },
    },
    async (request) => {
      const contentType = logoContentType(request);
      if (!Buffer.isBuffer(request.body)) throw unsupportedLogoType();
      const { orgId } = sessionOf(request);
      await enforceRateLimit(
        limiter,
        LOGO_UPLOADS,
        orgId,
        "too many logo uploads for this organization; try again later",
      );
      // Any accepted upload becomes a PNG of bounded size, metadata stripped: what we serve is what we drew.
      const png = await logoRasterizer.toPng(
        request.body,
        contentType === "image/svg+xml" ? "svg" : "bitmap",
      );
      await db.transaction(async (tx) => {
        await saveOrganizationLogo(tx, orgId, png, clock.now());
        await sweepCardImages(tx, orgId, clock.now());
      });
      return getOrganizationProfile(db, orgId);
    },
  );

  r.delete(
    "/organization/logo",
    {
      config: { appAccess: "owner" },
      schema: {
        operationId: "removeLogo",
        summary:
          "Removes the logo: cards not yet printed and the landing pages go without it (a printed card keeps its own); without a logo, nothing changes",
        tags: ["Settings"],
        response: { 200: ProfileView },
      },
    },
    async (request) => {
      const { orgId } = sessionOf(request);
      await db.transaction(async (tx) => {
        if (await removeOrganizationLogo(tx, orgId, clock.now()))
          await sweepCardImages(tx, orgId, clock.now());
      });
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
