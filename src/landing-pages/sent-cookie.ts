// A homeowner's browser remembers that its form reached the business: the page opened again (a
// second scan of the card) says so, and a form refused after it does not say "Your details were
// not sent yet", so nobody sends the same request twice by doubt. (A page the browser shows from
// its history, Back to a form refused before the thanks, asks the server nothing: it stays as it was.)
// The cookie holds nothing but that fact, only for the page's own path, and is never read elsewhere.
import type { FastifyRequest } from "fastify";

const NAME = "details_sent";
const THIRTY_DAYS_SECONDS = 30 * 24 * 60 * 60;

const pagePath = (token: string) => `/l/${encodeURIComponent(token)}`;

/** The Set-Cookie value that marks this page's form as sent from this browser. */
export function sentCookie(token: string, publicBaseUrl: string): string {
  const secure = publicBaseUrl.startsWith("https:") ? "; Secure" : "";
  return `${NAME}=1; Path=${pagePath(token)}; Max-Age=${THIRTY_DAYS_SECONDS}; HttpOnly; SameSite=Lax${secure}`;
}

/** Whether this browser sent the page's form before (its cookie came with the request). */
export function detailsSentBefore(request: FastifyRequest): boolean {
  const cookies = request.headers.cookie ?? "";
  return cookies.split(";").some((cookie) => cookie.trim() === `${NAME}=1`);
}
