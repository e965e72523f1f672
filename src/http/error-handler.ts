import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { isConnectionError, isDatabaseMisconfigured } from "../db/database.ts";
import {
  AppError,
  briefCause,
  databaseUnavailable,
  invalidJson,
  payloadTooLarge,
  unreadableBody,
} from "../errors.ts";
import { styledCode } from "./error-style.ts";
import { sendLandingPathError } from "./landing-pages.ts";
import { recordRouteMethods } from "./route-methods.ts";
import "./route-config.ts";
import { describeValidationError, type ValidationIssue } from "./validation-detail.ts";

interface ErrorBody {
  error: string;
  detail?: string;
}

/** Translates anything thrown during a request into the one AppError shape. */
export function toAppError(error: unknown, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as Partial<FastifyError> & {
    validation?: ValidationIssue[];
    validationContext?: string;
  };
  if (Array.isArray(fastifyError.validation)) {
    return new AppError(
      422,
      "invalid_payload",
      describeValidationError(fastifyError.validation, fastifyError.validationContext),
    );
  }
  switch (fastifyError.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return payloadTooLarge(request.routeOptions.bodyLimit ?? 1_048_576);
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return invalidJson();
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return unreadableBody("request body is empty; send a JSON object");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return unreadableBody("unsupported content type; send application/json");
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return unreadableBody("request body length does not match Content-Length");
  }
  if (fastifyError instanceof SyntaxError || fastifyError.name === "SyntaxError") {
    return invalidJson();
  }
  if (isConnectionError(error)) return databaseUnavailable();
  const status = fastifyError.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) {
    return new AppError(status, status === 404 ? "not_found" : "invalid_payload", fastifyError.message);
  }
  return new AppError(500, "internal_error");
}

export function renderError(error: AppError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { errorStyle, bareErrorCodes } = request.routeOptions.config ?? {};
  const body: ErrorBody = {
    error: error.restyle ? styledCode(errorStyle, error.code, error.status) : error.code,
  };
  if (error.detail !== undefined && !bareErrorCodes?.includes(error.code)) body.detail = error.detail;
  return reply.code(error.status).headers(error.headers).type("application/json; charset=utf-8").send(body);
}

/**
 * A 503 is an expected, retryable answer (an outage, the kill switch, a shutdown): one short
 * warning each, its code and the driver's message and code, never a stack (an outage at hundreds
 * of requests a second must not write megabytes of identical traces). A database that is gone or
 * refuses our credentials will not heal by itself: that stays an error with the full error, as
 * does every other 5xx. (request.log already carries the request id.)
 */
export function logServerError(request: FastifyRequest, error: unknown, appError: AppError): void {
  if (appError.status === 503 && !isDatabaseMisconfigured(error)) {
    const cause = briefCause(error);
    request.log.warn({ code: appError.code, ...(cause ? { cause } : {}) }, "request refused: unavailable");
  } else if (appError.status >= 500) {
    request.log.error({ err: error }, "request failed");
  }
}

/**
 * Error rendering for the whole app, and the answer for requests no route takes: 405 with Allow
 * when the path exists under other methods, else 404.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  const methodsOf = recordRouteMethods(app);
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error, request);
    logServerError(request, error, appError);
    return renderError(appError, request, reply);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = shortPath(request.url);
    const allowed = methodsOf(request.url);
    // A route that takes this method but found nothing (a missing static file) is a 404.
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      const detail = `${request.method} is not allowed on ${path}; use ${allowed.join(", ")}`;
      const error = new AppError(405, "method_not_allowed", detail, { allow: allowed.join(", ") });
      return renderError(error, request, reply);
    }
    return renderError(
      new AppError(404, "not_found", `no route for ${request.method} ${path}`),
      request,
      reply,
    );
  });
}

/** Paths can be kilobytes long; a detail quotes at most this much of one. */
const QUOTED_PATH_CHARS = 200;

function shortPath(url: string): string {
  const path = url.split("?")[0]!;
  return path.length > QUOTED_PATH_CHARS ? `${path.slice(0, QUOTED_PATH_CHARS)}…` : path;
}

/**
 * Fastify's `frameworkErrors` hook: errors its router raises before any route matched (a path
 * with broken percent-encoding, an over-long path parameter). Without it they answer in Fastify's
 * own `{error, code, message, statusCode}` shape.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  // No route's onSend runs here: the headers every answer carries (request-log.ts) are set now.
  reply.header("x-request-id", request.id);
  reply.header("x-content-type-options", "nosniff");
  reply.header("cache-control", "no-store");
  switch (error.code) {
    case "FST_ERR_BAD_URL": {
      const badUrl = new AppError(400, "bad_request", "the request path is not valid percent-encoding");
      // A browser opening or posting a landing page gets a page, not JSON (http/landing-pages.ts).
      return sendLandingPathError(badUrl, request, reply) ?? renderError(badUrl, request, reply);
    }
    case "FST_ERR_MAX_PARAM_LENGTH": {
      const tooLong = new AppError(414, "uri_too_long", "a path segment is too long");
      return sendLandingPathError(tooLong, request, reply) ?? renderError(tooLong, request, reply);
    }
    default:
      request.log.error({ err: error }, "request failed before routing");
      return renderError(new AppError(500, "internal_error"), request, reply);
  }
}
