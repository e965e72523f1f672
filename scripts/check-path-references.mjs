#!/usr/bin/env node
// Fails when a comment or a doc names a file that does not exist, so a reader is never sent to a
// module that moved. A reference is a token like `pieces/process-piece.ts` or `docs/limits.md` in
// a Markdown file or in a code comment (strings in code are the code's business: a test may name
// a scratch file); it counts as existing when it resolves against the repository root, src/,
// web/src/, test/, docs/ or the referring file's own folder. Relative imports are the compiler's to
// check. Migrations are left out: they are history, describing the tree as it was, and never edited.
// Part of `npm run lint` (CI). Usage: node scripts/check-path-references.mjs
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const SCANNED_FOLDERS = ["src", "scripts", "test", "docs", "bench", "web/src", "packages", "examples"];
const SCANNED_FILES = ["README.md"];
const SCANNED_EXTENSIONS = /\.(?:ts|tsx|mjs|md)$/;
const SKIPPED = new Set(["node_modules", "dist", "schema.d.ts"]);
const BASES = ["", "src", "web/src", "web", "test", "docs"];

// A path of at least two segments ending in a source or doc extension, not part of a URL, a
// relative import or a longer path (the look-behind), e.g. `jobs/queue.ts` or `docs/limits.md`.
const REFERENCE = /(?<![\w./@:~-])((?:[\w-]+\/)+[\w.-]+\.(?:ts|tsx|mjs|md|sql))(?![\w/])/g;

function filesBelow(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir)) {
    if (SKIPPED.has(entry)) continue;
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) filesBelow(full, out);
    else if (SCANNED_EXTENSIONS.test(entry)) out.push(full);
  }
  return out;
}

/** Where a line's comment starts (a whole Markdown line counts), or -1 when it has none. */
function commentStart(line, file) {
  if (file.endsWith(".md")) return 0;
  if (/^\s*(?:\*|\/\*|\/\/)/.test(line)) return 0;
  return line.indexOf("//");
}

function resolves(reference, referringFile) {
  const candidates = [...BASES.map((base) => path.join(ROOT, base)), path.dirname(referringFile)];
  return candidates.some((base) => existsSync(path.join(base, reference)));
}

const files = [
  ...SCANNED_FOLDERS.flatMap((folder) => filesBelow(path.join(ROOT, folder))),
  ...SCANNED_FILES.map((file) => path.join(ROOT, file)),
];
const broken = [];
for (const file of files) {
  const lines = readFileSync(file, "utf8").split("\n");
  lines.forEach((line, index) => {
    const start = commentStart(line, file);
    if (start < 0) return;
    for (const match of line.slice(start).matchAll(REFERENCE)) {
      const reference = match[1];
      if (reference.includes("node_modules")) continue;
      if (!resolves(reference, file)) broken.push(`${path.relative(ROOT, file)}:${index + 1}: ${reference}`);
    }
  });
}
if (broken.length > 0) {
  console.error(
    `These comments or docs name files that do not exist (moved or renamed?):\n${broken.join("\n")}`,
  );
  process.exit(1);
}
console.log(`path references: ${files.length} files checked, every named file exists`);
