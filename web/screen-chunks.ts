import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Plugin, Rolldown } from "vite";

/** The placeholder in public/early-reads.js the build replaces with each screen's files. */
export const SCREEN_FILES_PLACEHOLDER = "/* screen files: written by the build (web/screen-chunks.ts) */ []";

export interface ScreenFiles {
  /** The route's path under /app/ as routes/tree.tsx declares it, e.g. `automations/$automationId`. */
  path: string;
  /** The built files its lazy component needs beyond the app's entry: its chunks, then their style sheets. */
  files: string[];
}

/**
 * Each signed-in screen's route path and the page module its lazy component imports, read from
 * routes/tree.tsx (`createRoute({ getParentRoute: () => signedInRoute, path: "…", … import("../pages/…") })`).
 */
export function screensOf(tree: string): { path: string; page: string }[] {
  return tree.split("createRoute(").flatMap((route) => {
    const parent = /getParentRoute: \(\) => signedInRoute,/.test(route);
    const routePath = /\bpath: "([^"]+)"/.exec(route)?.[1];
    const page = /import\("\.\.\/pages\/([^"]+)"\)/.exec(route)?.[1];
    return parent && routePath && page ? [{ path: routePath, page: `pages/${page}` }] : [];
  });
}

/** A chunk and every chunk it imports statically, depth first. */
function withImports(
  bundle: Rolldown.OutputBundle,
  fileName: string,
  found = new Set<string>(),
): Set<string> {
  if (found.has(fileName)) return found;
  found.add(fileName);
  const chunk = bundle[fileName];
  if (chunk?.type === "chunk") for (const imported of chunk.imports) withImports(bundle, imported, found);
  return found;
}

/**
 * Writes into dist/early-reads.js, for each screen, the built files its lazy route component needs
 * that the app's entry does not already load. The page asks for them as it starts: otherwise they
 * are asked for only once the app's code has run and the router has matched the URL, a round trip
 * added to every first visit (docs/app.md, "The screen's own code").
 */
export function screenChunks(base: string): Plugin {
  let screens: ScreenFiles[] = [];
  return {
    name: "porchlight-screen-chunks",
    apply: "build",
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((file) => file.type === "chunk");
      const entry = chunks.find((chunk) => chunk.isEntry);
      if (!entry) throw new Error("screen-chunks: the build has no entry chunk");
      const loadedByEntry = withImports(bundle, entry.fileName);
      const tree = readFileSync(path.resolve(import.meta.dirname, "src/routes/tree.tsx"), "utf8");
      screens = screensOf(tree).map(({ path: routePath, page }) => {
        const chunk = chunks.find((candidate) => candidate.facadeModuleId?.endsWith(`/src/${page}`));
        if (!chunk) throw new Error(`screen-chunks: no chunk for ${page} (route ${routePath})`);
        const own = [...withImports(bundle, chunk.fileName)].filter((file) => !loadedByEntry.has(file));
        const sheets = own.flatMap((file) => {
          const owned = bundle[file];
          return owned?.type === "chunk" ? [...(owned.viteMetadata?.importedCss ?? [])] : [];
        });
        return { path: routePath, files: [...own, ...new Set(sheets)].map((file) => `${base}${file}`) };
      });
    },
    writeBundle(options) {
      const target = path.join(options.dir ?? "dist", "early-reads.js");
      const script = readFileSync(target, "utf8");
      if (!script.includes(SCREEN_FILES_PLACEHOLDER))
        throw new Error(`screen-chunks: ${target} lacks the placeholder for the screens' files`);
      writeFileSync(target, script.replace(SCREEN_FILES_PLACEHOLDER, JSON.stringify(screens)));
    },
  };
}
