import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import vm from "node:vm";

/**
 * public/early-reads.js runs before the app's code, so it cannot ask the router which pages are
 * signed out: it keeps its own list. These tests hold that list to the router's (routes/tree.tsx):
 * a new signed-out page left out of it would cost its visitors two 401s, and a screen caught by it
 * would lose its head start.
 */
const web = path.join(import.meta.dirname, "../../web");
const tree = readFileSync(path.join(web, "src/routes/tree.tsx"), "utf8");
const earlyReads = readFileSync(path.join(web, "public/early-reads.js"), "utf8");

/** The `path` of every route declared with `parent` as its parent in tree.tsx, as a URL under /app/. */
function pathsUnder(parent: string): string[] {
  const declared = new RegExp(`getParentRoute: \\(\\) => ${parent},\\s*path: "([^"]+)"`, "g");
  return [...tree.matchAll(declared)].map(([, route]) => route!.replace(/\$[A-Za-z]+/g, "some-id"));
}

/** The paths early-reads.js asks for when the page starts at `pathname`. */
function earlyRequestsAt(pathname: string): string[] {
  const requested: string[] = [];
  const window: Record<string, unknown> = { location: { pathname } };
  const fetch = (url: string) => {
    requested.push(url);
    return new Promise(() => {});
  };
  vm.runInNewContext(earlyReads, { window, fetch });
  return requested;
}

const appUrl = (route: string) => `/app/${route.replace(/^\//, "")}`;

describe("the page's early reads (public/early-reads.js) and the router agree on who is signed in", () => {
  const signedOut = pathsUnder("rootRoute");
  const screens = pathsUnder("signedInRoute");

  test("the router's pages are found (the parsing of tree.tsx still holds)", () => {
    assert.ok(signedOut.includes("sign-in"), `signed-out pages found: ${signedOut.join(", ")}`);
    assert.ok(screens.includes("mail/some-id"), `screens found: ${screens.join(", ")}`);
    assert.ok(screens.length >= 10, `screens found: ${screens.join(", ")}`);
  });

  test("no signed-out page asks for the session or the organization", () => {
    for (const route of signedOut) {
      assert.deepEqual(earlyRequestsAt(appUrl(route)), [], `${appUrl(route)} starts no early read`);
    }
  });

  test("every screen of a contractor asks for both as the page starts", () => {
    for (const route of screens) {
      assert.deepEqual(
        earlyRequestsAt(appUrl(route)),
        ["/app/api/v1/session", "/app/api/v1/organization"],
        `${appUrl(route)} starts the session's reads`,
      );
    }
  });
});
