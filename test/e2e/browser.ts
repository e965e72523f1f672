import { mkdirSync } from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { type Browser, chromium, type Page } from "playwright-core";

/** Debian's Chromium (apt-get install -y chromium): no browser is downloaded. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const ARTIFACTS = path.resolve(import.meta.dirname, "artifacts");

export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;
export type ViewportName = keyof typeof VIEWPORTS;

/** `extraArgs`: more Chromium flags, e.g. a host resolver rule for a server that must not look local. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      ...extraArgs,
    ],
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

/** The serious and critical WCAG A/AA violations on the page, minus the named exceptions, as readable lines. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(WCAG_TAGS).analyze();
  return readableViolations(
    results,
    (violation) => violation.impact === "serious" || violation.impact === "critical",
  );
}

/**
 * The page's structure as a screen reader walks it, at any impact (most of these rules are
 * "moderate"): landmarks (`landmark-*`: none twice with one role and name, none nested where it
 * cannot be) and headings that go down one level at a time (`heading-order`). axe files these under
 * best practice rather than WCAG, so `seriousViolations` does not run them.
 */
export async function structureViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(["best-practice"]).analyze();
  return readableViolations(
    results,
    (violation) => violation.id.startsWith("landmark-") || violation.id === "heading-order",
  );
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
