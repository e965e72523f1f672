import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../errors.ts";
import { logServerError, toAppError } from "../http/error-handler.ts";

/**
 * The app API's error body: `{error: {code, message, details?}}`. One AppError, as everywhere;
 * only its rendering differs from the developer API's `{error, detail}` (a web app wants a
 * sentence to show, and room for field errors).
 */
export interface AppErrorBody {
  error: { code: string; message: string; details?: unknown };
}

const DEFAULT_MESSAGES: Record<string, string> = {
  unauthorized: "Sign in to continue.",
  forbidden: "Only an owner of this organization can do that.",
  not_found: "Not found.",
  invalid_payload: "Some fields are not valid.",
  invalid_json: "The request body is not valid JSON.",
  rate_limited: "Too many attempts; wait a moment and try again.",
  csrf_rejected: "This request did not come from the app's own pages.",
  internal_error: "Something went wrong on our side.",
  service_unavailable: "The service is unavailable; retry in a moment.",
  automations_disabled: "Porchlight has paused all mail for now: nothing was sent. Try again later.",
};

/** The app API's codes for errors shared with the developer API, whose 403 code is `unauthorized`. */
function appCode(error: AppError): string {
  if (error.status === 403 && error.code === "unauthorized") return "forbidden";
  return error.code;
}

export function renderAppError(error: AppError, reply: FastifyReply): FastifyReply {
  const code = appCode(error);
  const message =
    error.status >= 500
      ? (DEFAULT_MESSAGES[code] ?? "Something went wrong.")
      : (error.detail ?? DEFAULT_MESSAGES[code] ?? code);
  const body: AppErrorBody = { error: { code, message } };
  const details = (error as AppError & { details?: unknown }).details;
  if (details !== undefined && error.status < 500) body.error.details = details;
  const headers = { ...error.headers };
  // The app authenticates by cookie: a Bearer challenge would be wrong here.
  delete headers["www-authenticate"];
  return reply.code(error.status).headers(headers).type("application/json; charset=utf-8").send(body);
}

/** Errors of the app API's scope, and its unknown paths, in the app's shape. */
export function registerAppErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request: FastifyRequest, reply) => {
    const appError = toAppError(error, request);
    logServerError(request, error, appError);
    return renderAppError(appError, reply);
  });
  app.setNotFoundHandler(renderAppNotFound);
}

/** A request under the app API's prefix that no route takes: 404 in the app's shape. */
export function renderAppNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = request.url.split("?")[0]!.slice(0, 200);
  return renderAppError(new AppError(404, "not_found", `no route for ${request.method} ${path}`), reply);
}

/** An error carrying field errors for the form that sent the request. */
export function appError(status: number, code: string, message: string, details?: unknown): AppError {
  const error = new AppError(status, code, message) as AppError & { details?: unknown };
  if (details !== undefined) error.details = details;
  return error;
}

export const forbiddenForMembers = () =>
  appError(403, "forbidden", "Only an owner of this organization can do that.");
export const signInRequired = () => appError(401, "unauthorized", "Sign in to continue.");
export const csrfRejected = () =>
  appError(403, "csrf_rejected", "This request did not come from the app's own pages.");
