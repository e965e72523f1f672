import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError, rateLimited } from "../errors.ts";
import { logServerError, renderError, toAppError } from "../http/error-handler.ts";
import { renderNotFound } from "../http/landing-html.ts";
import {
  isBrowserRequest,
  isFormPost,
  LANDING_HEADERS,
  newNonce,
  registerFormBodyParser,
  sendErrorPage,
  sendHtml,
} from "../http/landing-pages.ts";
import { ErrorBody } from "../http/schemas.ts";
import { type LandingContext, loadLandingContext, saveLandingLead } from "../leads/capture.ts";
import {
  type CardWords,
  type FormValues,
  formMessages,
  type LandingBusiness,
  renderLandingPage,
  renderStopMailConfirm,
  renderStopMailDone,
  renderThankYou,
  themeOf,
} from "../leads/landing-page-html.ts";
import { recordLandingVisit } from "../leads/landing-visits.ts";
import {
  formProblems,
  type RawLeadSubmission,
  submissionFromForm,
  submissionFromJson,
  validateSubmission,
} from "../leads/submission.ts";
import { optOutPieceHome } from "../mail-safety/do-not-mail.ts";
import { loadCardSender } from "../orgs/card-sender.ts";
import { pageWordsOfPiece } from "../pieces/render-piece.ts";
import type { Services } from "../services.ts";
import { detailsSentBefore, sentCookie } from "./sent-cookie.ts";

// An empty token (`/l/`) is a page that does not exist (404), not an invalid request (422).
const TokenParams = Type.Object({ token: Type.String({ maxLength: 128 }) });

/**
 * The most a lead form reads. Its standard fields hold 2,500 characters and a custom field 500; even
 * percent-encoded (up to 9 bytes a character) a real form is far below this. Anyone may post to any
 * token, and the body is read before the token is looked up: a megabyte of JSON values or escapes cost a
 * third of a second of the event loop to read.
 */
export const LEAD_FORM_BODY_LIMIT = 65_536;

/**
 * The page also answers with a trailing slash, which QR scanner apps add: served in place rather
 * than redirected, so a phone on a slow network makes one request, not two (and spends one of its
 * per-IP allowance). Its form posts to the canonical path and the page is noindex, so the second
 * address shows up nowhere.
 */
const PAGE_PATHS = ["/l/:token", "/l/:token/"] as const;

const FieldValue = Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 50 })]);

/** The JSON twin of the lead form (the HTML form posts the same names, custom fields as custom_<id>). */
export const LeadSubmission = Type.Object(
  {
    first_name: Type.Optional(Type.String()),
    last_name: Type.Optional(Type.String()),
    email: Type.Optional(Type.String()),
    phone: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
    custom_fields: Type.Optional(Type.Record(Type.String(), FieldValue)),
  },
  {
    title: "LeadSubmission",
    additionalProperties: false,
    patternProperties: { "^custom_(?!fields$)[a-z][a-z0-9_]*$": FieldValue },
  },
);

export const LeadCaptured = Type.Object(
  { lead_id: Type.String({ format: "uuid" }) },
  { title: "LeadCaptured" },
);

const STRICT_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'";

/**
 * A form's answer (the thank-you, the form shown again with its problems, the stop-mail answer)
 * may be kept in the homeowner's own browser: with `no-store` a POST's page cannot be shown again,
 * and Back from the thank-you was Chromium's "Confirm Form Resubmission" error page. `private`
 * keeps it out of shared caches; `no-cache` makes any ordinary load ask the server again.
 */
const FORM_ANSWER_CACHE = "private, no-cache";

function isAnsweredForm(request: FastifyRequest, reply: FastifyReply): boolean {
  return (
    request.method === "POST" && isFormPost(request) && (reply.statusCode === 200 || reply.statusCode === 422)
  );
}

/**
 * Errors of the landing scope (the per-IP limit, a database outage, a shutdown, a bad token or
 * form body) reach a browser as a page with their status and headers (Retry-After), not JSON.
 */
function sendScopeError(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const appError = toAppError(error, request);
  logServerError(request, error, appError);
  if (!isBrowserRequest(request)) return renderError(appError, request, reply);
  return sendErrorPage(appError, request, reply);
}

/**
 * Landing pages at /l/{token}: the personalized page a mail piece's QR code opens, and its lead
 * form (HTML form or JSON). Per-IP throttling applies through the global guard.
 */
export async function registerLandingRoutes(app: FastifyInstance, services: Services): Promise<void> {
  // Form bodies only here: the developer API accepts JSON alone.
  registerFormBodyParser(app, LEAD_FORM_BODY_LIMIT);
  app.setErrorHandler(sendScopeError);
  app.addHook("onSend", async (request, reply, payload) => {
    if (!reply.hasHeader("content-security-policy")) reply.header("content-security-policy", STRICT_CSP);
    reply.headers(LANDING_HEADERS);
    if (isAnsweredForm(request, reply)) reply.header("cache-control", FORM_ANSWER_CACHE);
    return payload;
  });

  for (const path of PAGE_PATHS) registerPage(app, services, path);
  registerStopMail(app, services);
  registerUnknownPaths(app);
  registerSiteIcon(app);
}

function registerPage(app: FastifyInstance, services: Services, path: (typeof PAGE_PATHS)[number]): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { config } = services;
  const deps = { db: services.db, clock: services.clock, leadsPerHour: config.landingLeadsPerTokenPerHour };
  const load = async (token: string) => {
    const context = await loadLandingContext(services.db, token, {
      now: services.clock.now(),
      ttlDays: config.landingPageTtlDays,
    });
    if (!context) return undefined;
    const business = await businessOf(services, context.orgId);
    // The page, its thank-you and its messages name the business as its cards do.
    return { ...context, orgName: business.name, business };
  };
  const cardOf = (context: LandingContext) => pageWordsOfPiece(services.db, context.pieceId);
  const canonical = path === PAGE_PATHS[0];

  r.get(
    path,
    {
      schema: {
        hide: true,
        ...(canonical ? { operationId: "getLandingPage" } : {}),
        summary: "The personalized landing page of a mail piece (HTML)",
        params: TokenParams,
      },
    },
    async (request, reply) => {
      const nonce = newNonce();
      const context = await load(request.params.token);
      if (!context) return sendHtml(reply, 404, nonce, renderNotFound(nonce));
      await recordLandingVisit(services, context, services.clock.now());
      return sendHtml(
        reply,
        200,
        nonce,
        renderLandingPage(context, {
          nonce,
          action: landingPath(request.params.token),
          stopMailPath: stopMailPath(request.params.token),
          business: context.business,
          ...withCard(await cardOf(context)),
          sentBefore: detailsSentBefore(request),
        }),
      );
    },
  );

  r.post(
    path,
    {
      bodyLimit: LEAD_FORM_BODY_LIMIT,
      attachValidation: true,
      schema: {
        hide: true,
        ...(canonical ? { operationId: "submitLead" } : {}),
        summary:
          "Submit the lead form (form post → thank-you page, JSON → 201; the same submission again → the same lead)",
        params: TokenParams,
        body: LeadSubmission,
        response: {
          201: LeadCaptured,
          400: ErrorBody,
          404: ErrorBody,
          413: ErrorBody,
          422: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const form = isFormPost(request);
      const context = await load(request.params.token);
      if (!form) {
        if (!context) throw new AppError(404, "not_found", "no landing page for this token");
        if (request.validationError) throw request.validationError;
        const valid = validateSubmission(
          context.fields,
          submissionFromJson(request.body as RawLeadSubmission & Record<string, unknown>),
        );
        const outcome = await saveLandingLead(deps, context, valid);
        if (!outcome.captured) {
          logLeadCap(request, context);
          throw rateLimited(outcome.retryAfterSeconds, "this page has taken its most leads for the hour");
        }
        return reply.code(201).send({ lead_id: outcome.leadId });
      }
      const nonce = newNonce();
      if (!context) return sendHtml(reply, 404, nonce, renderNotFound(nonce));
      const values = (request.body ?? {}) as FormValues;
      const raw = submissionFromForm(values);
      try {
        if (request.validationError) throw request.validationError;
        const valid = validateSubmission(context.fields, raw);
        // Past the page's hourly cap the visitor is thanked as usual: a flood learns nothing.
        const outcome = await saveLandingLead(deps, context, valid);
        if (!outcome.captured) logLeadCap(request, context);
        const thanks = renderThankYou(context, { nonce, business: context.business, reachAt: valid });
        reply.header("set-cookie", sentCookie(request.params.token, config.publicBaseUrl));
        return sendHtml(reply, 200, nonce, thanks);
      } catch (error) {
        const appError = toAppError(error, request);
        if (appError.status !== 422) throw error;
        return sendHtml(
          reply,
          422,
          nonce,
          renderLandingPage(context, {
            nonce,
            action: landingPath(request.params.token),
            stopMailPath: stopMailPath(request.params.token),
            business: context.business,
            ...withCard(await cardOf(context)),
            values,
            messages: formMessages(formProblems(context.fields, raw), context.business.name),
            error: "Please check the form and send it again.",
            sentBefore: detailsSentBefore(request),
          }),
        );
      }
    },
  );
}

/**
 * "Stop mail to this address" (mail safety, issue 29): GET shows the confirm step, and only its
 * form's POST puts the home on the org's do-not-mail list, so a link scanner that opens the link
 * stops nothing. The POST must come from this site's own page: a browser names a cross-site
 * form's origin (Origin, Sec-Fetch-Site), and such a post is refused.
 */
function registerStopMail(app: FastifyInstance, services: Services): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { config } = services;
  const ownOrigin = new URL(config.publicBaseUrl).origin;
  const load = async (token: string) => {
    const context = await loadLandingContext(services.db, token, {
      now: services.clock.now(),
      ttlDays: config.landingPageTtlDays,
    });
    if (!context) return undefined;
    // The business the card named, never the organization's internal name.
    const business = await businessOf(services, context.orgId);
    return { ...context, orgName: business.name, theme: themeOf(business) };
  };
  const summary = "Stop mail to this address: the confirm page (GET) and its confirmation (form POST)";

  r.get(
    "/l/:token/stop",
    { schema: { hide: true, summary, params: TokenParams } },
    async (request, reply) => {
      const nonce = newNonce();
      const context = await load(request.params.token);
      if (!context) return sendHtml(reply, 404, nonce, renderNotFound(nonce));
      const page = renderStopMailConfirm(context, {
        nonce,
        action: stopMailPath(request.params.token),
        theme: context.theme,
      });
      return sendHtml(reply, 200, nonce, page);
    },
  );

  r.post(
    "/l/:token/stop",
    {
      bodyLimit: 4096,
      schema: {
        hide: true,
        summary,
        params: TokenParams,
        body: Type.Object({ confirm: Type.Literal("yes") }),
      },
    },
    async (request, reply) => {
      const nonce = newNonce();
      if (!isFormPost(request) || isCrossSite(request, ownOrigin)) {
        throw new AppError(403, "forbidden", "the opt-out is confirmed from its own page only");
      }
      const context = await load(request.params.token);
      if (!context) return sendHtml(reply, 404, nonce, renderNotFound(nonce));
      await optOutPieceHome(services.db, {
        orgId: context.orgId,
        pieceId: context.pieceId,
        now: services.clock.now(),
      });
      request.log.info({ orgId: context.orgId, pieceId: context.pieceId }, "home opted out of mail");
      return sendHtml(reply, 200, nonce, renderStopMailDone(context, nonce, context.theme));
    },
  );
}

function isCrossSite(request: FastifyRequest, ownOrigin: string): boolean {
  const origin = request.headers.origin;
  const site = request.headers["sec-fetch-site"];
  // The page's `Referrer-Policy: no-referrer` makes a browser post its own form with `Origin: null`
  // (and over plain http it sends no Sec-Fetch-Site): an opaque origin names no site, so it is
  // judged as a post without Origin, by Sec-Fetch-Site when the browser sends it.
  if (origin !== undefined && origin !== "null" && origin !== ownOrigin) return true;
  return site !== undefined && site !== "same-origin" && site !== "none";
}

/** The organization's profile as its landing page shows it (the card's own data and logo). */
async function businessOf(services: Services, orgId: string): Promise<LandingBusiness> {
  const sender = await loadCardSender(services.db, orgId);
  return {
    name: sender.name,
    phone: sender.phone,
    brandColor: sender.brandColor ?? null,
    logoDataUrl: sender.logo
      ? `data:image/png;base64,${Buffer.from(sender.logo.png).toString("base64")}`
      : null,
  };
}

/** The card's words for the page's options (none when the piece is gone). */
const withCard = (card: CardWords | undefined) => (card ? { card } : {});

function logLeadCap(request: FastifyRequest, context: LandingContext): void {
  request.log.warn(
    { orgId: context.orgId, pieceId: context.pieceId },
    "landing page lead cap reached; submission not stored",
  );
}

/**
 * A browser showing a landing page asks the origin for /favicon.ico: an empty answer, where a 404
 * was an error in the homeowner's console. The page itself links nothing.
 */
function registerSiteIcon(app: FastifyInstance): void {
  app.get("/favicon.ico", { schema: { hide: true } }, async (_request, reply) => reply.code(204).send());
}

/**
 * Any other path under /l/ (`/l/`, `/l/{token}/x`, `/l//{token}`) is a page that does not exist:
 * a browser gets the not-found page with the landing headers, a JSON caller 404 JSON. Answered
 * before the body is read (onRequest), so an unreadable body does not turn it into a 400. A token
 * too long for the router is 414, as `/l/{token}` answers it (http/error-handler.ts).
 */
function registerUnknownPaths(app: FastifyInstance): void {
  const maxTokenLength = app.initialConfig.maxParamLength ?? 100;
  for (const url of ["/l/", "/l/*"]) {
    app.route({
      method: ["GET", "POST"],
      url,
      schema: { hide: true },
      onRequest: async (request, reply) => {
        const token = ((request.params as { "*"?: string })["*"] ?? "").split("/")[0]!;
        const error =
          token.length > maxTokenLength
            ? new AppError(414, "uri_too_long", "a path segment is too long")
            : new AppError(404, "not_found", "no landing page at this path");
        if (!isBrowserRequest(request)) return renderError(error, request, reply);
        return sendErrorPage(error, request, reply, "path");
      },
      handler: async () => {
        throw new AppError(404, "not_found");
      },
    });
  }
}

/**
 * The form posts back to the page's own path, built from the token (not from the request target,
 * which may be an absolute-form URL naming another host).
 */
function landingPath(token: string): string {
  return `/l/${encodeURIComponent(token)}`;
}

function stopMailPath(token: string): string {
  return `${landingPath(token)}/stop`;
}
