import { readdirSync, statSync } from "node:fs";
import path from "node:path";

/** Every .ts file below `dir` (declaration files left out), for the lint scripts. */
export function sourceFiles(dir, out = []) {
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) sourceFiles(full, out);
    else if (/\.ts$/.test(entry) && !entry.endsWith(".d.ts")) out.push(full);
  }
  return out;
}
