import { execFileSync } from "node:child_process";

/** The lines of text a PDF shows, as poppler's pdftotext reads them (no-break spaces kept). */
export function pdfTextLines(pdf: Buffer): string[] {
  return execFileSync("pdftotext", ["-raw", "-enc", "UTF-8", "-", "-"], { input: pdf })
    .toString("utf8")
    .split(/\r?\n|\f/)
    .map((line) => line.trim())
    .filter(Boolean);
}

/** The fonts a PDF uses as pdffonts lists them: name, embedded, subset. */
export function pdfFonts(pdf: Buffer): { name: string; embedded: boolean; subset: boolean }[] {
  const out = execFileSync("pdffonts", ["-"], { input: pdf }).toString("utf8");
  return out
    .split("\n")
    .slice(2)
    .filter((line) => line.trim())
    .map((line) => {
      const columns = line.trim().split(/\s+/);
      // name, type (1-2 words), encoding, emb, sub, uni, object, id: read emb and sub from the end.
      return { name: columns[0]!, embedded: columns.at(-5) === "yes", subset: columns.at(-4) === "yes" };
    });
}
