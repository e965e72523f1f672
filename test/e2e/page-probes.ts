/**
 * What the browser tests ask of a page beyond what Playwright's locators say: where the keyboard's
 * focus is, and a request held in flight, to see a screen while it waits.
 */
import type { Locator, Page, Request, Route } from "playwright-core";
import { waitUntil } from "./session.ts";

/** What has the focus, said as a person would find it (its tag and name), or "body". */
export const describeFocus = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement;
    if (!element || element === document.body) return "body";
    const name = element.getAttribute("aria-label") ?? element.textContent?.trim().slice(0, 80) ?? "";
    return `${element.tagName.toLowerCase()}: ${name}`;
  });

/** Waits until `target` has the focus; the failure says where the focus is instead. */
export async function waitForFocus(page: Page, target: Locator, what: string) {
  await waitUntil(
    () => target.evaluate((element) => element === document.activeElement),
    `${what} has the focus`,
    10_000,
  ).catch(async (error: unknown) => {
    throw new Error(`${what} should have the focus; it is on ${await describeFocus(page)}`, { cause: error });
  });
}

/** How a held request is answered instead of reaching the server. */
export interface HeldFailure {
  status: number;
  code: string;
  message: string;
}

/** The app's own API, where the held requests are looked for unless a test names other URLs. */
const APP_API = "**/app/api/v1/**";

/**
 * Holds the page's next app API request (or, with `under`, the next request to those URLs, e.g. the
 * operator API's) whose method and path match, from `start()` on, until `release` is called; then lets
 * it through, or answers it with `failure`. `held` resolves when the request is waiting. (Unrouted only
 * after: with no route left, Chromium's interception ends and lets a held request go.)
 */
export function holdNextRequest(page: Page, method: string, path: RegExp, under = APP_API) {
  let release!: (failure?: HeldFailure) => void;
  const released = new Promise<HeldFailure | undefined>((resolve) => {
    release = resolve;
  });
  let markHeld!: () => void;
  const held = new Promise<void>((resolve) => {
    markHeld = resolve;
  });
  let taken = false;
  const handler = async (route: Route, request: Request) => {
    if (taken || request.method() !== method || !path.test(new URL(request.url()).pathname)) {
      await route.fallback();
      return;
    }
    taken = true;
    markHeld();
    const failure = await released;
    if (failure)
      await route.fulfill({
        status: failure.status,
        json: { error: { code: failure.code, message: failure.message } },
      });
    else await route.continue();
    await page.unroute(under, handler);
  };
  return { start: () => page.route(under, handler), held, release };
}

/** Waits until `button` shows it is loading (Mantine's `data-loading`), as it does while its request is held. */
export async function waitForLoading(button: Locator, what: string) {
  await waitUntil(
    async () => (await button.getAttribute("data-loading")) !== null,
    `${what} shows it is loading`,
    10_000,
  );
}

/**
 * Clicks `button` with the page's next app API request (or request to `under`) matching `method` and
 * `path` held: resolves once that request waits, for the caller to look at the screen and then
 * `release` it (holdNextRequest).
 */
export async function clickWithRequestHeld(
  page: Page,
  button: Locator,
  method: string,
  path: RegExp,
  under = APP_API,
) {
  const request = holdNextRequest(page, method, path, under);
  await request.start();
  await button.click();
  await request.held;
  return request;
}
