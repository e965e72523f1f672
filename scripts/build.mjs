#!/usr/bin/env node
// Builds what `npm start` serves: the server (src/ → dist/, bundled by esbuild) and, when web/
// exists, the web app (web/ → web/dist/, Vite).
// Usage: node scripts/build.mjs [server] [web] [--if-stale]
//   no target names: every target; --if-stale: only targets whose stamp does not match their
//   sources (what the launcher, scripts/start.mjs, asks for).
//
// esbuild strips the types (as tsx does in development) and bundles; types are checked by
// `npm run typecheck`, not here: a whole-program `tsc` emit takes ~20 s on a 2-core machine, the
// bundle a few seconds.
//
// Each target's stamp (dist/.build-stamp.json, web/dist/.build-stamp.json) records the mtime, size
// and hash of every file it was built from; the launcher compares the sources with it.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import {
  listSources,
  presentTargets,
  ROOT,
  sourceChanged,
  staleReason,
  TARGETS,
  toolVersion,
} from "./build-stamp.mjs";
import { carryOverChunks } from "./carry-over-chunks.mjs";

class BuildError extends Error {}

/** Writes beside the target, then renames: a process starting meanwhile never reads half a file. */
function writeAtomically(file, content) {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, file);
}

function writeStamp(target, sources) {
  const stamp = { tool: toolVersion(target), sources };
  writeAtomically(path.join(ROOT, TARGETS[target].stamp), `${JSON.stringify(stamp)}\n`);
}

/**
 * The server's entry points: the process, the two worker threads and the logo rasteriser's child
 * process it starts by file name (they are looked up beside the module that starts them, so every
 * output sits in one folder).
 */
const SERVER_ENTRIES = [
  "main.ts",
  "db/pglite-thread-worker.ts",
  "render/render-worker.ts",
  "render/logo-rasterizer-process.ts",
];

/**
 * Packages loaded from node_modules at run time instead of bundled: they read files of their own
 * (PGlite's WebAssembly, sharp's native library, pdfkit's font metrics, piscina's and pino's worker
 * files, ), or are loaded only on first use (sign-in, MCP, Redis, SMTP, the
 * remote geocoder's HTTP client), where bundling would only make the build bigger.
 */
const RUNTIME_PACKAGES = [
  "@electric-sql/pglite",
  "sharp",
  "pdfkit",
  "fontkit",
  "qrcode",
  "piscina",
  "pino",
  "thread-stream",
  "ioredis",
  "pg-native",
  "better-auth",
  "@better-auth/*",
  "@modelcontextprotocol/sdk",
  "nodemailer",
  "undici",
  "zipcodes",
  "tar",
];

/** What an earlier build left in dist/ (one compiled file per source file, before the bundle). */
function removeEarlierOutputs(dist) {
  const kept = new Set(["server", "main.js", path.basename(TARGETS.server.stamp)]);
  for (const entry of readdirSync(dist)) {
    if (!kept.has(entry) && !entry.includes(".tmp") && !entry.endsWith(".old"))
      rmSync(path.join(dist, entry), { recursive: true, force: true });
  }
}

/**
 * A bundled CommonJS file that reads files beside itself (`__dirname`: the docs UI's static assets)
 * gets its own folder in node_modules back, found at run time from the bundle's place in the
 * repository (the stamp rebuilds the bundle when package-lock.json changes).
 */
const packageDirnames = {
  name: "package-dirnames",
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/].*\.c?js$/ }, async (args) => {
      const contents = await readFile(args.path, "utf8");
      if (!/\b__(dirname|filename)\b/.test(contents)) return undefined;
      const relative = JSON.stringify(path.relative(ROOT, args.path));
      return {
        contents: `var __filename = __porchlightPath.join(__porchlightRoot, ${relative}), __dirname = __porchlightPath.dirname(__filename);\n${contents}`,
        loader: "js",
        resolveDir: path.dirname(args.path),
      };
    });
  },
};

/** Opens each output file: require() for bundled CommonJS, and the repository's root for the above. */
const BUNDLE_BANNER = [
  'import { createRequire as __porchlightRequire } from "node:module";',
  'import __porchlightPath from "node:path";',
  "const require = __porchlightRequire(import.meta.url);",
  // dist/server/ is two folders below the repository.
  'const __porchlightRoot = __porchlightPath.resolve(import.meta.dirname, "../..");',
].join(" ");

async function loadEsbuild() {
  try {
    return await import("esbuild");
  } catch {
    throw new BuildError(
      "esbuild is not installed (a production install without dev dependencies); " +
        "build before pruning them: `npm ci && npm prune --omit=dev` (docs/operations.md, Build and start)",
    );
  }
}

/** `file.ts:1:22: Expected expression` (the file relative to the checkout) for each error esbuild reports. */
function esbuildMessages(failure) {
  const errors = failure.errors ?? [];
  if (errors.length === 0) return String(failure.message ?? failure);
  return errors
    .map(({ text, location }) =>
      location ? `${location.file}:${location.line}:${location.column}: ${text}` : text,
    )
    .join("\n");
}

/**
 * Bundles the server into dist/server/ (one file per entry, shared code in chunks, dependencies
 * included but for RUNTIME_PACKAGES): the compiled start then reads a few large files instead of
 * ~1,500 small ones (docs/benchmarks.md, Start-up). The new build is written beside the old one and
 * swapped in by renames, so a process starting meanwhile reads one build or the other; the old
 * build's chunks the new one lacks go with it, for processes still running the old code
 * (carry-over-chunks.mjs).
 */
async function buildServer() {
  const esbuild = await loadEsbuild();
  const sources = listSources("server");
  const entries = Object.fromEntries(sources.map((source) => [source.relative, sourceChanged(source).entry]));
  const entryPoints = Object.fromEntries(
    SERVER_ENTRIES.filter((entry) => existsSync(path.join(ROOT, "src", entry))).map((entry) => [
      path.basename(entry, ".ts"),
      path.join("src", entry),
    ]),
  );
  const dist = path.join(ROOT, "dist");
  const next = path.join(dist, `server.${process.pid}.tmp`);
  rmSync(next, { recursive: true, force: true });
  try {
    await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints,
      outdir: next,
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      chunkNames: "chunk-[hash]",
      sourcemap: true,
      external: RUNTIME_PACKAGES,
      logLevel: "silent",
      banner: { js: BUNDLE_BANNER },
      plugins: [packageDirnames],
    });
  } catch (failure) {
    rmSync(next, { recursive: true, force: true });
    throw new BuildError(esbuildMessages(failure));
  }
  const current = path.join(dist, "server");
  const old = path.join(dist, `server.${process.pid}.old`);
  // Before the swap, so the folder a process finds is whole either way.
  carryOverChunks(current, next);
  if (existsSync(current)) renameSync(current, old);
  renameSync(next, current);
  rmSync(old, { recursive: true, force: true });
  // dist/main.js stays the start's path; the bundle sits one folder down, at the depth of src/'s
  // files, so their paths to the repository (migrations/, web/dist/, docs/) hold unchanged.
  writeAtomically(path.join(dist, "main.js"), 'import "./server/main.js";\n');
  writeStamp("server", entries);
  removeEarlierOutputs(dist);
  const files = sources.filter((source) => source.relative.startsWith("src/")).length;
  return `${files} source files bundled into dist/server/`;
}

function buildWeb() {
  // Read before building: an edit made while Vite runs leaves the stamp stale, not the build.
  const entries = Object.fromEntries(
    listSources("web").map((source) => [source.relative, sourceChanged(source).entry]),
  );
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["run", "build:web"], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
  if (result.status !== 0)
    throw new BuildError(`npm run build:web exited with ${result.status ?? result.signal}`);
  writeStamp("web", entries);
  return "web/ built to web/dist/";
}

async function main() {
  const args = process.argv.slice(2);
  const named = args.filter((arg) => !arg.startsWith("--"));
  const unknown = named.filter((name) => !TARGETS[name]);
  if (unknown.length > 0) throw new BuildError(`unknown target ${unknown.join(", ")}; targets: server, web`);
  const targets = named.length > 0 ? named : presentTargets();
  for (const target of targets) {
    if (args.includes("--if-stale") && !staleReason(target)) continue;
    const started = performance.now();
    const done = target === "server" ? await buildServer() : buildWeb();
    process.stderr.write(`build: ${done} in ${Math.round(performance.now() - started)} ms\n`);
  }
}

try {
  await main();
} catch (error) {
  process.stderr.write(`build failed: ${error instanceof BuildError ? error.message : error?.stack}\n`);
  process.exit(1);
}
