import { mkdirSync } from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { type Browser, chromium, type Page } from "playwright-core";

/** The app's navigation links as a person reads them, in order (AppLayout's NAVIGATION). */
export const NAVIGATION_LINKS = [
  "Overview",
  "Automations",
  "Mail",
  "Approvals",
  "Leads",
  "Revenue",
  "Customers",
  "Developers",
  "Settings",
];

/** Debian's Chromium (apt-get install -y chromium): no browser is downloaded. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const ARTIFACTS = path.resolve(import.meta.dirname, "artifacts");

export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;
export type ViewportName = keyof typeof VIEWPORTS;

/** The switches every test and benchmark launches Debian's Chromium with. */
const SWITCHES = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/**
 * Chromium's own omnibox popup, a WebUI page that headless Chromium builds in every new window: ~1.5 s
 * of CPU in a renderer of its own and ~0.4 s in the browser process for each new context, on the core
 * the page under test runs on (docs/benchmarks.md, 2026-12-01). A person's window has built it before
 * they type an address, so the app is timed and tested without it.
 */
const BROWSER_UI_FEATURES_OFF = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"];

let featuresSwitch: Promise<{ playwrights: string | undefined; ours: string }> | undefined;

/**
 * Chromium keeps only the last --disable-features, so ours extends Playwright's own list (features it
 * turns off for automation) instead of replacing it. That list is read, once a process, from the
 * command line of a browser launched to tell it.
 */
function disabledFeatures() {
  featuresSwitch ??= (async () => {
    const probe = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [...SWITCHES, "--enable-automation"],
    });
    try {
      const cdp = await probe.newBrowserCDPSession();
      const { arguments: args } = await cdp.send("Browser.getBrowserCommandLine");
      const playwrights = args.find((arg) => arg.startsWith("--disable-features="));
      const features = [playwrights?.slice("--disable-features=".length), ...BROWSER_UI_FEATURES_OFF];
      return { playwrights, ours: `--disable-features=${features.filter(Boolean).join(",")}` };
    } finally {
      await probe.close();
    }
  })();
  return featuresSwitch;
}

/** `extraArgs`: more Chromium flags, e.g. a host resolver rule for a server that must not look local. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const features = await disabledFeatures();
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    ignoreDefaultArgs: features.playwrights ? [features.playwrights] : [],
    args: [...SWITCHES, features.ours, ...extraArgs],
  });
}

/**
 * Axe findings we accept, each named with its rule, the element and why. Anything else that is
 * serious or critical fails the test.
 */
export const AXE_EXCEPTIONS: { rule: string; target: string; reason: string }[] = [];

const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

type AxeResults = Awaited<ReturnType<AxeBuilder["analyze"]>>;

/** The violations `keep` picks, minus the named exceptions, as readable lines. */
function readableViolations(
  results: AxeResults,
  keep: (violation: AxeResults["violations"][number]) => boolean,
): string[] {
  const found: string[] = [];
  for (const violation of results.violations.filter(keep)) {
    for (const node of violation.nodes) {
      const target = node.target.join(" ");
      const excepted = AXE_EXCEPTIONS.some(
        (exception) => exception.rule === violation.id && target.includes(exception.target),
      );
      if (!excepted)
        found.push(
          `${violation.id} (${violation.impact}) at ${target}: ${node.failureSummary ?? violation.help}`,
        );
    }
  }
  return found;
}

/**
 * One axe run over the page with `tags`. Legacy mode runs axe.run in the page itself: the default
 * runs it per frame and then finishes in a blank page it opens for every run (a renderer process of
 * its own each time); the app has no frames for it to reach.
 */
function analyze(page: Page, tags: string[]): Promise<AxeResults> {
  return new AxeBuilder({ page }).withTags(tags).setLegacyMode().analyze();
}

const isSerious = (violation: AxeResults["violations"][number]) =>
  (violation.impact === "serious" || violation.impact === "critical") &&
  violation.tags.some((tag) => WCAG_TAGS.includes(tag));

/**
 * The page's structure as a screen reader walks it, at any impact (most of these rules are
 * "moderate"): landmarks (`landmark-*`: none twice with one role and name, none nested where it
 * cannot be), headings that go down one level at a time (`heading-order`) and no content outside a
 * landmark (`region`: a menu opened in a portal at the document's end was). axe files these under
 * best practice rather than WCAG, so the serious check alone does not run them.
 */
const isStructure = (violation: AxeResults["violations"][number]) =>
  violation.id.startsWith("landmark-") || violation.id === "heading-order" || violation.id === "region";

/** The serious and critical WCAG A/AA violations on the page, minus the named exceptions, as readable lines. */
export async function seriousViolations(page: Page): Promise<string[]> {
  return readableViolations(await analyze(page, WCAG_TAGS), isSerious);
}

/** The structure violations on the page (`isStructure`), minus the named exceptions, as readable lines. */
export async function structureViolations(page: Page): Promise<string[]> {
  return readableViolations(await analyze(page, ["best-practice"]), isStructure);
}

/** Both of the above from one axe run. */
export async function seriousAndStructureViolations(
  page: Page,
): Promise<{ serious: string[]; structure: string[] }> {
  const results = await analyze(page, [...WCAG_TAGS, "best-practice"]);
  return {
    serious: readableViolations(results, isSerious),
    structure: readableViolations(results, isStructure),
  };
}

/**
 * Waits until no finite animation runs: after a resize the navigation slides in or out (a CSS
 * transition started by a media query or a re-render a frame or two later), and a screenshot taken
 * during it shows a half-open drawer. Endless ones (a loader's spin) are not waited for.
 */
export async function settled(page: Page): Promise<void> {
  // No named functions inside: the test runner's transform would wrap them in a helper the page lacks.
  await page.evaluate(async () => {
    for (let round = 0; round < 20; round++) {
      await new Promise((resolve) => requestAnimationFrame(resolve));
      await new Promise((resolve) => requestAnimationFrame(resolve));
      const running = document
        .getAnimations()
        .filter(
          (animation) =>
            animation.playState === "running" &&
            Number.isFinite(animation.effect?.getComputedTiming().endTime ?? Number.POSITIVE_INFINITY),
        );
      if (running.length === 0) return;
      await Promise.all(running.map((animation) => animation.finished.catch(() => undefined)));
    }
  });
}

export async function screenshot(page: Page, name: string, viewport: ViewportName): Promise<string> {
  const file = path.join(ARTIFACTS, `${name}-${viewport}.png`);
  await settled(page);
  // The header and navigation are fixed: from the top they land where a person sees them.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
