#!/usr/bin/env node
// Builds what `npm start` serves: the server (src/ → dist/, with the options of tsconfig.build.json)
// and, when web/ exists, the web app (web/ → web/dist/, Vite).
// Usage: node scripts/build.mjs [server] [web] [--if-stale] [--force]
//   no target names: every target; --if-stale: only targets whose stamp does not match their
//   sources (what the launcher, scripts/start.mjs, asks for); --force: recompile every server file.
//
// Server files are emitted one at a time by the TypeScript compiler (what `tsc --isolatedModules`
// emits; tsx runs the same files one at a time with esbuild in development). Types are checked by
// `npm run typecheck`, not here: a whole-program `tsc` emit takes ~20 s on a 2-core machine, this
// about a second for everything and only the changed files after an edit.
//
// Each target's stamp (dist/.build-stamp.json, web/dist/.build-stamp.json) records the mtime, size
// and hash of every file it was built from; the launcher compares the sources with it.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  listSources,
  presentTargets,
  ROOT,
  readStamp,
  sourceChanged,
  staleReason,
  TARGETS,
  toolVersion,
} from "./build-stamp.mjs";

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

async function loadTypeScript() {
  try {
    return (await import("typescript")).default;
  } catch {
    throw new BuildError(
      "the TypeScript compiler is not installed (a production install without dev dependencies); " +
        "build before pruning them: `npm ci && npm prune --omit=dev` (docs/operations.md, Build and start)",
    );
  }
}

function serverCompilerOptions(ts) {
  const configFile = path.join(ROOT, "tsconfig.build.json");
  const { config, error } = ts.readConfigFile(configFile, ts.sys.readFile);
  if (error) throw new BuildError(ts.flattenDiagnosticMessageText(error.messageText, "\n"));
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, ROOT, undefined, configFile);
  if (parsed.errors.length > 0) {
    throw new BuildError(
      parsed.errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")).join("\n"),
    );
  }
  // transpileModule cannot look up package.json's "type"; every file under src/ is an ES module.
  return {
    ...parsed.options,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
  };
}

/** dist/ path of a file under src/: `.ts` compiles to `.js`, anything else (an asset) is copied. */
function serverOutput(relative) {
  return path.join(ROOT, "dist", path.relative("src", relative).replace(/\.ts$/, ".js"));
}

function compileServerFile(ts, options, source) {
  const output = serverOutput(source.relative);
  if (!source.relative.endsWith(".ts")) {
    writeAtomically(output, readFileSync(source.file));
    return;
  }
  const result = ts.transpileModule(readFileSync(source.file, "utf8"), {
    compilerOptions: options,
    fileName: source.file,
    reportDiagnostics: true,
  });
  const errors = result.diagnostics?.filter((d) => d.category === ts.DiagnosticCategory.Error) ?? [];
  if (errors.length > 0) {
    const lines = errors.map(
      (d) => `${source.relative}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
    );
    throw new BuildError(lines.join("\n"));
  }
  if (result.sourceMapText) writeAtomically(`${output}.map`, result.sourceMapText);
  writeAtomically(output, result.outputText);
}

async function buildServer({ force }) {
  const ts = await loadTypeScript();
  const options = serverCompilerOptions(ts);
  const previous = readStamp("server");
  // A new compiler or new options may emit differently: everything is compiled again.
  const sources = listSources("server");
  const config = sources.find((source) => source.relative === "tsconfig.build.json");
  const reuse =
    !force &&
    previous?.tool === ts.version &&
    config &&
    !sourceChanged(config, previous.sources[config.relative]).changed;
  const entries = {};
  let compiled = 0;
  for (const source of sources) {
    const change = sourceChanged(source, reuse ? previous.sources[source.relative] : undefined);
    entries[source.relative] = change.entry;
    if (source === config) continue;
    if (change.changed || !existsSync(serverOutput(source.relative))) {
      compileServerFile(ts, options, source);
      compiled++;
    }
  }
  // The output of a source that is gone would still be importable by a stale path: remove it.
  for (const relative of Object.keys(previous?.sources ?? {})) {
    if (entries[relative] || !relative.startsWith("src/")) continue;
    rmSync(serverOutput(relative), { force: true });
    rmSync(`${serverOutput(relative)}.map`, { force: true });
  }
  writeStamp("server", entries);
  return `${compiled} of ${sources.length - 1} files compiled to dist/`;
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
    const done = target === "server" ? await buildServer({ force: args.includes("--force") }) : buildWeb();
    process.stderr.write(`build: ${done} in ${Math.round(performance.now() - started)} ms\n`);
  }
}

try {
  await main();
} catch (error) {
  process.stderr.write(`build failed: ${error instanceof BuildError ? error.message : error?.stack}\n`);
  process.exit(1);
}
