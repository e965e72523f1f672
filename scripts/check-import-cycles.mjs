#!/usr/bin/env node
// Fails when src/ has an import cycle between files, or between folders (a file directly in src/
// counts as a module of its own), or when an infrastructure folder imports a domain module.
// Type-only and dynamic imports count too: a cycle of types still ties two modules' designs
// together. Part of `npm run lint` (CI). Usage: node scripts/check-import-cycles.mjs [--report]
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { sourceFiles } from "./source-files.mjs";

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const SRC = path.join(ROOT, "src");

function importsOf(file) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return importedFiles
    .map(({ fileName }) => fileName)
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => path.resolve(path.dirname(file), specifier))
    .filter((target) => target.startsWith(SRC) && target.endsWith(".ts"));
}

function moduleOf(file) {
  const relative = path.relative(SRC, file);
  const folder = path.dirname(relative);
  return folder === "." ? relative : folder;
}

/** Tarjan's strongly connected components; returns the components of more than one node. */
function cycles(graph) {
  let index = 0;
  const stack = [];
  const state = new Map();
  const found = [];
  const visit = (node) => {
    const entry = { index, low: index, onStack: true };
    index++;
    state.set(node, entry);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const seen = state.get(next);
      if (!seen) {
        visit(next);
        entry.low = Math.min(entry.low, state.get(next).low);
      } else if (seen.onStack) entry.low = Math.min(entry.low, seen.index);
    }
    if (entry.low === entry.index) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        state.get(member).onStack = false;
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

const fileGraph = new Map();
const folderGraph = new Map();
for (const file of sourceFiles(SRC)) {
  const targets = importsOf(file);
  fileGraph.set(file, new Set(targets));
  const from = moduleOf(file);
  if (!folderGraph.has(from)) folderGraph.set(from, new Set());
  for (const target of targets) {
    const to = moduleOf(target);
    if (to !== from) folderGraph.get(from).add(to);
  }
}

/**
 * Infrastructure that every domain may use and that uses no domain (docs/architecture.md): it
 * imports only itself, the shared kernel (domain/) and the top-level clock, config, errors, logger.
 */
const INFRASTRUCTURE = new Set("http db jobs geo imagery render print mail limits domain".split(" "));
const TOP_LEVEL_BASICS = new Set([
  "clock.ts",
  "config.ts",
  "errors.ts",
  "logger.ts",
  "event-loop-delay.ts",
  "event-loop-slices.ts",
]);
const layerViolations = [];
for (const [from, targets] of folderGraph) {
  if (!INFRASTRUCTURE.has(from)) continue;
  for (const to of targets)
    if (!INFRASTRUCTURE.has(to) && !TOP_LEVEL_BASICS.has(to)) layerViolations.push(`${from} → ${to}`);
}

const fileCycles = cycles(fileGraph).map((component) => component.map((file) => path.relative(ROOT, file)));
const folderCycles = cycles(folderGraph);
for (const component of folderCycles) console.log(`folder cycle: ${component.join(" ↔ ")}`);
for (const component of fileCycles) console.log(`file cycle: ${component.join(" ↔ ")}`);
for (const edge of layerViolations) console.log(`infrastructure imports a domain: ${edge}`);
const problems = folderCycles.length + fileCycles.length + layerViolations.length;
if (problems > 0 && !process.argv.includes("--report")) process.exit(1);
if (problems === 0) console.log("no import cycles in src/, and infrastructure imports no domain");
