// What each build (src/ → dist/, web/ → web/dist/) was made from, shared by the build
// (scripts/build.mjs) and the launcher (scripts/start.mjs). Plain JavaScript with no dependencies:
// the launcher runs it on every start, before anything is compiled.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..");

/**
 * A build target: the files it is made from (every file under `sourceDirs`, and `inputs`) and the
 * stamp that records them. `toolVersion` names the compiler package whose upgrade invalidates it.
 */
export const TARGETS = {
  server: {
    sourceDirs: ["src"],
    // The bundle holds the dependencies too: an install that changes them changes it.
    inputs: ["tsconfig.json", "package-lock.json"],
    toolPackage: "esbuild",
    outDir: "dist",
    stamp: "dist/.build-stamp.json",
    // Declarations emit nothing.
    skip: (relative) => relative.endsWith(".d.ts"),
  },
  web: {
    sourceDirs: ["web/src", "web/public"],
    inputs: [
      "web/index.html",
      "web/vite.config.ts",
      "web/screen-chunks.ts",
      "web/tsconfig.json",
      "web/package.json",
    ],
    toolPackage: "vite",
    outDir: "web/dist",
    stamp: "web/dist/.build-stamp.json",
    skip: () => false,
  },
};

/** The targets this checkout has (web/ may be absent). */
export function presentTargets() {
  return Object.keys(TARGETS).filter((name) => existsSync(path.join(ROOT, TARGETS[name].sourceDirs[0])));
}

export function fingerprint(bytes) {
  return createHash("sha256").update(bytes).digest("base64url").slice(0, 22);
}

function fileEntry(relative) {
  const file = path.join(ROOT, relative);
  const { mtimeMs, size } = statSync(file);
  return { relative, file, mtimeMs, size };
}

/** Every file a target is built from, by path relative to the repository, sorted. */
export function listSources(target) {
  const { sourceDirs, inputs, skip } = TARGETS[target];
  const sources = [];
  for (const dir of sourceDirs) {
    const absolute = path.join(ROOT, dir);
    if (!existsSync(absolute)) continue;
    for (const entry of readdirSync(absolute, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const relative = path.relative(ROOT, path.join(entry.parentPath ?? entry.path, entry.name));
      if (!skip(relative)) sources.push(fileEntry(relative));
    }
  }
  for (const input of inputs) if (existsSync(path.join(ROOT, input))) sources.push(fileEntry(input));
  return sources.sort((a, b) => (a.relative < b.relative ? -1 : 1));
}

/**
 * Whether a file differs from its stamp entry. The mtime and size decide at no cost; a file whose
 * mtime moved but whose bytes did not (a checkout, a copy into an image) is compared by hash.
 */
export function sourceChanged(source, known) {
  if (known && known.mtimeMs === source.mtimeMs && known.size === source.size) {
    return { changed: false, entry: known };
  }
  const entry = { mtimeMs: source.mtimeMs, size: source.size, hash: fingerprint(readFileSync(source.file)) };
  return { changed: !known || known.hash !== entry.hash || known.size !== entry.size, entry };
}

export function readStamp(target) {
  try {
    return JSON.parse(readFileSync(path.join(ROOT, TARGETS[target].stamp), "utf8"));
  } catch {
    return undefined;
  }
}

/** The installed version of the target's compiler, or undefined (a production install). */
export function toolVersion(target) {
  const manifest = path.join(ROOT, "node_modules", TARGETS[target].toolPackage, "package.json");
  return existsSync(manifest) ? JSON.parse(readFileSync(manifest, "utf8")).version : undefined;
}

/** Why a target's output does not match its sources (a short phrase), or undefined when it does. */
export function staleReason(target) {
  const stamp = readStamp(target);
  if (!stamp) return "no build yet";
  const tool = toolVersion(target);
  if (tool && stamp.tool !== tool) return `${TARGETS[target].toolPackage} ${stamp.tool} → ${tool}`;
  const sources = listSources(target);
  if (sources.length !== Object.keys(stamp.sources).length) return "files added or removed";
  for (const source of sources) {
    if (sourceChanged(source, stamp.sources[source.relative]).changed) return `${source.relative} changed`;
  }
  return undefined;
}
