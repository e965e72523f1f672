#!/usr/bin/env node
// Holds web/src/ui/mantine-styles.ts to what the built app uses. Mantine names each component's CSS
// classes `m_` and a hash, in its JavaScript and in its style sheets alike, so the built app (web/dist)
// tells which sheets it needs: it fails when a class the app's code uses is defined by no built sheet
// (the component would render unstyled), naming the sheet to import, and when a sheet the list imports
// defines no class the code uses (bytes every first visit parses for nothing).
// Part of `npm run ci:extra`. Usage (after `npm run build:web`): node scripts/check-mantine-styles.mjs
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const BUILT = path.join(ROOT, "web/dist/assets");
const LIST = path.join(ROOT, "web/src/ui/mantine-styles.ts");
const MANTINE_CLASS = /\bm_[0-9a-f]{5,8}\b/g;
const CORE_SHEETS = path.join(
  path.dirname(createRequire(path.join(ROOT, "web/package.json")).resolve("@mantine/core/styles.css")),
  "styles",
);

const classesIn = (text) => new Set(text.match(MANTINE_CLASS) ?? []);
const builtText = (extension) =>
  readdirSync(BUILT)
    .filter((file) => file.endsWith(extension))
    .map((file) => readFileSync(path.join(BUILT, file), "utf8"))
    .join("\n");

if (!existsSync(BUILT)) {
  console.error("web/dist is missing: run `npm run build:web` first");
  process.exit(1);
}
const used = classesIn(builtText(".js"));
const defined = classesIn(builtText(".css"));
const coreSheets = readdirSync(CORE_SHEETS)
  .filter((file) => file.endsWith(".css") && !file.endsWith(".layer.css"))
  .map((file) => ({ file, classes: classesIn(readFileSync(path.join(CORE_SHEETS, file), "utf8")) }));

const problems = [];
const missing = [...used].filter((name) => !defined.has(name));
for (const sheet of coreSheets.filter(({ classes }) => missing.some((name) => classes.has(name))))
  problems.push(
    `the app uses ${sheet.file.replace(".css", "")} but no sheet styles it: add import "@mantine/core/styles/${sheet.file}"`,
  );
const inCore = new Set(coreSheets.flatMap(({ classes }) => [...classes]));
const elsewhere = missing.filter((name) => !inCore.has(name));
if (elsewhere.length > 0)
  problems.push(
    `classes used but styled nowhere (another @mantine package's styles.css?): ${elsewhere.join(", ")}`,
  );

const listed = [...readFileSync(LIST, "utf8").matchAll(/"@mantine\/core\/styles\/([\w-]+\.css)"/g)].map(
  (m) => m[1],
);
for (const file of listed) {
  const sheet = coreSheets.find((candidate) => candidate.file === file);
  if (!sheet) problems.push(`${file} is not a sheet of @mantine/core`);
  else if (sheet.classes.size > 0 && ![...sheet.classes].some((name) => used.has(name)))
    problems.push(`${file} styles nothing the app uses: remove it`);
}

if (problems.length > 0) {
  console.error(`web/src/ui/mantine-styles.ts:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(
  `mantine styles: ${listed.length} sheets, every one of the app's ${used.size} Mantine classes styled`,
);
