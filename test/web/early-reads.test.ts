import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import vm from "node:vm";
import { SCREEN_FILES_PLACEHOLDER, type ScreenFiles, screensOf } from "../../web/screen-chunks.ts";

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
function earlyRequestsAt(pathname: string, script = earlyReads): { reads: string[]; links: string[] } {
  const reads: string[] = [];
  const links: string[] = [];
  const window: Record<string, unknown> = { location: { pathname } };
  const fetch = (url: string) => {
    reads.push(url);
    return new Promise(() => {});
  };
  const document = {
    createElement: () => ({}),
    head: {
      appendChild: (link: { rel: string; as?: string; href: string; crossOrigin: string }) =>
        links.push(
          `${link.rel}${link.as ? ` as ${link.as}` : ""} ${link.href} crossorigin="${link.crossOrigin}"`,
        ),
    },
  };
  vm.runInNewContext(script, { window, fetch, document });
  return { reads, links };
}

/** early-reads.js as the build writes it, with these screens' files. */
const withScreens = (screens: ScreenFiles[]) =>
  earlyReads.replace(SCREEN_FILES_PLACEHOLDER, JSON.stringify(screens));

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
      assert.deepEqual(earlyRequestsAt(appUrl(route)).reads, [], `${appUrl(route)} starts no early read`);
    }
  });

  test("every screen of a contractor asks for both as the page starts", () => {
    for (const route of screens) {
      assert.deepEqual(
        earlyRequestsAt(appUrl(route)).reads,
        ["/app/api/v1/session", "/app/api/v1/organization"],
        `${appUrl(route)} starts the session's reads`,
      );
    }
  });
});

describe("each screen's own code, asked for as the page starts (web/screen-chunks.ts)", () => {
  const screens = [
    { path: "/", files: ["/app/assets/OverviewPage-1.js", "/app/assets/OverviewPage-1.css"] },
    { path: "automations/$automationId", files: ["/app/assets/Builder-1.js"] },
    { path: "automations/new", files: ["/app/assets/New-1.js"] },
    { path: "mail/$pieceId", files: ["/app/assets/PiecePage-1.js"] },
  ];
  const linksAt = (pathname: string) => earlyRequestsAt(pathname, withScreens(screens)).links;

  test("the placeholder the build fills is in public/early-reads.js", () => {
    assert.ok(earlyReads.includes(SCREEN_FILES_PLACEHOLDER));
  });

  test("a screen's chunks are module preloads and its style sheets style preloads, in the app's mode", () => {
    assert.deepEqual(linksAt("/app/"), [
      'modulepreload /app/assets/OverviewPage-1.js crossorigin=""',
      'preload as style /app/assets/OverviewPage-1.css crossorigin=""',
    ]);
    assert.deepEqual(linksAt("/app"), linksAt("/app/"));
  });

  test("a route's parameters match one segment, and a path without them wins, as in the router", () => {
    assert.deepEqual(linksAt("/app/automations/new"), ['modulepreload /app/assets/New-1.js crossorigin=""']);
    assert.deepEqual(linksAt("/app/automations/0b5c"), [
      'modulepreload /app/assets/Builder-1.js crossorigin=""',
    ]);
    assert.deepEqual(linksAt("/app/mail/0b5c/extra"), []);
    assert.deepEqual(linksAt("/app/sign-in"), []);
  });

  test("every signed-in route of tree.tsx is found with its page", () => {
    const found = screensOf(tree);
    assert.deepEqual(
      found.map((screen) => screen.path.replace(/\$[A-Za-z]+/g, "some-id")).sort(),
      pathsUnder("signedInRoute").sort(),
    );
    for (const screen of found) assert.match(screen.page, /^pages\/\w+\/\w+\.tsx$/);
  });

  test("the built early-reads.js preloads each screen's own chunk, a file of the build", () => {
    const built = path.join(web, "dist/early-reads.js");
    assert.ok(existsSync(built), "web/dist is missing: run `npm run build:web` (npm ci does)");
    const script = readFileSync(built, "utf8");
    assert.ok(!script.includes(SCREEN_FILES_PLACEHOLDER), "the build filled in the screens' files");
    for (const { path: route, page } of screensOf(tree)) {
      const url = appUrl(route.replace(/\$[A-Za-z]+/g, "0b5c"));
      const links = earlyRequestsAt(url, script).links;
      const pageName = path.basename(page, ".tsx");
      assert.match(links[0] ?? "", new RegExp(`^modulepreload /app/assets/${pageName}-[\\w-]+\\.js `), url);
      for (const link of links) {
        const file = link.split(" ").at(-2)!;
        assert.ok(existsSync(path.join(web, "dist", file.replace(/^\/app\//, ""))), `${file} is built`);
      }
    }
  });
});
