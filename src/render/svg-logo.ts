import { SaxesParser, type SaxesTagNS } from "saxes";
import { AppError, invalidPayload } from "../errors.ts";

/**
 * An uploaded SVG logo is rebuilt from an allow-list before anything draws it (issue 37: a
 * 315-byte SVG of blur, turbulence and morphology filters at 3100 × 3100 took a rasteriser 6 s).
 * What passes is plain drawing: shapes, paths, text, gradients and clip paths, with presentation
 * attributes. Filters, masks, patterns, markers, `<use>`, images, `foreignObject`, scripts,
 * links and every reference outside the document are refused (422 naming the element) or, for
 * attributes, dropped; titles, descriptions, metadata and editors' own elements (Inkscape,
 * Illustrator) are dropped with their content. The root's size is rewritten so the drawing
 * rasterises at most `maxSide` pixels on its longer side.
 */

const SVG_NS = "http://www.w3.org/2000/svg";

/** Elements a logo may use. */
const ALLOWED_ELEMENTS = new Set([
  "svg",
  "g",
  "defs",
  "path",
  "rect",
  "circle",
  "ellipse",
  "line",
  "polyline",
  "polygon",
  "text",
  "tspan",
  "linearGradient",
  "radialGradient",
  "stop",
  "clipPath",
  "style",
]);

/** Elements dropped with everything inside them: they draw nothing. */
const DROPPED_ELEMENTS = new Set(["title", "desc", "metadata"]);

/** Presentation properties, allowed as attributes and in `style`. */
const PRESENTATION = new Set([
  "fill",
  "fill-opacity",
  "fill-rule",
  "stroke",
  "stroke-width",
  "stroke-opacity",
  "stroke-linecap",
  "stroke-linejoin",
  "stroke-miterlimit",
  "stroke-dasharray",
  "stroke-dashoffset",
  "opacity",
  "color",
  "clip-path",
  "clip-rule",
  "stop-color",
  "stop-opacity",
  "font-family",
  "font-size",
  "font-weight",
  "font-style",
  "text-anchor",
  "dominant-baseline",
  "letter-spacing",
  "visibility",
  "display",
]);

/** Geometry and structure attributes. */
const GEOMETRY = new Set([
  "id",
  "class",
  "x",
  "y",
  "x1",
  "y1",
  "x2",
  "y2",
  "cx",
  "cy",
  "r",
  "rx",
  "ry",
  "fx",
  "fy",
  "width",
  "height",
  "d",
  "points",
  "transform",
  "viewBox",
  "preserveAspectRatio",
  "clipPathUnits",
  "gradientUnits",
  "gradientTransform",
  "spreadMethod",
  "offset",
  "dx",
  "dy",
  "version",
]);

/** More elements than any logo needs; a drawing's cost grows with them. */
export const SVG_MAX_ELEMENTS = 10_000;
const MAX_DEPTH = 64;

/** `url(#id)`: the only reference a value may hold (a gradient or clip path of this document). */
const LOCAL_URL = /^url\(\s*(["']?)#[A-Za-z_][\w.:-]*\1\s*\)$/;

function refuse(detail: string): never {
  throw invalidPayload(`logo: ${detail}`);
}

function safeValue(value: string): string | undefined {
  if (!/url\s*\(/i.test(value)) return /[<>]/.test(value) ? undefined : value;
  // A paint with a fallback (`url(#g) red`) is fine; keep the reference only when it is local.
  const [reference, ...fallback] = value.trim().split(/(?<=\))\s+/);
  if (!reference || !LOCAL_URL.test(reference) || fallback.some((part) => /url\s*\(/i.test(part))) {
    return undefined;
  }
  return value;
}

/** A `style` attribute's declarations, keeping allowed properties with safe values. */
function safeDeclarations(css: string): string {
  const kept: string[] = [];
  for (const declaration of css.split(";")) {
    const colon = declaration.indexOf(":");
    if (colon < 0) continue;
    const property = declaration.slice(0, colon).trim().toLowerCase();
    const value = declaration.slice(colon + 1).trim();
    const safe = PRESENTATION.has(property) ? safeValue(value) : undefined;
    if (safe !== undefined && !/[\\{}]/.test(safe)) kept.push(`${property}:${safe}`);
  }
  return kept.join(";");
}

/**
 * A `<style>` sheet reduced to simple rules (type, class and id selectors) with allowed
 * declarations; at-rules (`@import`, `@font-face`, `@media`) are dropped.
 */
function safeStyleSheet(css: string): string {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, "");
  const rules: string[] = [];
  for (const match of text.matchAll(/([^{}]*)\{([^{}]*)\}/g)) {
    const selector = match[1]!.trim();
    if (!selector || !/^[\w\s.#,>*-]+$/.test(selector)) continue;
    const declarations = safeDeclarations(match[2]!);
    if (declarations) rules.push(`${selector}{${declarations}}`);
  }
  return rules.join("\n");
}

const escapeText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const escapeAttribute = (text: string) => escapeText(text).replace(/"/g, "&quot;");

const PIXELS_PER_UNIT: Record<string, number> = {
  "": 1,
  px: 1,
  pt: 4 / 3,
  pc: 16,
  mm: 96 / 25.4,
  cm: 96 / 2.54,
  in: 96,
};

/** A root `width`/`height` in CSS pixels; undefined for relative units (`%`, `em`) or none. */
function lengthInPixels(value: string | undefined): number | undefined {
  const match = value?.trim().match(/^(\d*\.?\d+(?:e[+-]?\d+)?)\s*(px|pt|pc|mm|cm|in)?$/i);
  if (!match) return undefined;
  const pixels = Number(match[1]) * PIXELS_PER_UNIT[(match[2] ?? "").toLowerCase()]!;
  return Number.isFinite(pixels) && pixels > 0 ? pixels : undefined;
}

function parseViewBox(value: string | undefined): [number, number, number, number] | undefined {
  const numbers = value
    ?.trim()
    .split(/[\s,]+/)
    .map(Number);
  if (numbers?.length !== 4 || numbers.some((n) => !Number.isFinite(n))) return undefined;
  const [x, y, width, height] = numbers as [number, number, number, number];
  return width > 0 && height > 0 ? [x, y, width, height] : undefined;
}

/**
 * The root's attributes with a viewBox and a pixel size: the drawing fills at most
 * `maxSide` pixels on its longer side (twice its own size when smaller, for a sharp print).
 */
function sizedRoot(attributes: Map<string, string>, maxSide: number): Map<string, string> {
  const width = lengthInPixels(attributes.get("width"));
  const height = lengthInPixels(attributes.get("height"));
  let viewBox = parseViewBox(attributes.get("viewBox"));
  if (!viewBox) {
    if (width === undefined || height === undefined) {
      refuse("the SVG has no size: give its root element a viewBox, or a width and height in pixels");
    }
    viewBox = [0, 0, width, height];
  }
  const [, , boxWidth, boxHeight] = viewBox;
  const ownLonger = Math.max(width ?? boxWidth, height ?? boxHeight);
  const longer = Math.min(maxSide, Math.max(1, Math.round(ownLonger * 2)));
  const scale = longer / Math.max(boxWidth, boxHeight);
  const sized = new Map(attributes);
  sized.set("viewBox", viewBox.join(" "));
  sized.set("width", String(Math.max(1, Math.round(boxWidth * scale))));
  sized.set("height", String(Math.max(1, Math.round(boxHeight * scale))));
  return sized;
}

function keptAttributes(tag: SaxesTagNS): Map<string, string> {
  const kept = new Map<string, string>();
  for (const attribute of Object.values(tag.attributes)) {
    // Namespace declarations are written again for the output; editors' attributes are dropped.
    if (attribute.prefix === "xmlns" || attribute.name === "xmlns" || attribute.uri) continue;
    const name = attribute.local;
    if (name === "style") {
      const declarations = safeDeclarations(attribute.value);
      if (declarations) kept.set("style", declarations);
      continue;
    }
    if (!PRESENTATION.has(name) && !GEOMETRY.has(name)) continue;
    const value = safeValue(attribute.value);
    if (value !== undefined) kept.set(name, value);
  }
  return kept;
}

/** The logo rebuilt from its allowed parts, sized for rasterising; 422 when it cannot be. */
export function sanitizeSvgLogo(svg: Buffer, maxSide: number): Buffer {
  const parser = new SaxesParser({ xmlns: true, position: false });
  const out: string[] = [];
  const open: string[] = [];
  let droppedDepth = 0;
  let elements = 0;
  let sawRoot = false;
  /** Where the open `<style>` element's sheet starts in `out`, while one is open. */
  let styleStart: number | undefined;

  parser.on("doctype", () => refuse("the SVG has a DOCTYPE; export it without one"));
  parser.on("processinginstruction", (pi) => {
    if (pi.target !== "xml") refuse(`the SVG has a <?${pi.target}?> instruction`);
  });
  parser.on("opentag", (tag) => {
    if (droppedDepth > 0) {
      droppedDepth++;
      return;
    }
    const name = tag.local;
    if (tag.uri !== SVG_NS) {
      if (!sawRoot) refuse("the file is not an SVG image (its root is not an <svg> element)");
      // An editor's own element (sodipodi:namedview, an Illustrator data block): draws nothing.
      droppedDepth = 1;
      return;
    }
    if (DROPPED_ELEMENTS.has(name)) {
      droppedDepth = 1;
      return;
    }
    if (!ALLOWED_ELEMENTS.has(name)) {
      refuse(
        `the SVG uses <${name}>, which a logo may not (filters, masks, patterns, images, <use> and links are refused); export plain shapes, or a PNG`,
      );
    }
    if (!sawRoot && name !== "svg") refuse("the file is not an SVG image (its root is not an <svg> element)");
    if (++elements > SVG_MAX_ELEMENTS) refuse(`the SVG has more than ${SVG_MAX_ELEMENTS} elements`);
    if (open.length >= MAX_DEPTH) refuse(`the SVG nests elements deeper than ${MAX_DEPTH} levels`);
    let attributes = keptAttributes(tag);
    if (!sawRoot) {
      attributes = sizedRoot(attributes, maxSide);
      attributes.set("xmlns", SVG_NS);
      sawRoot = true;
    }
    const written = [...attributes].map(([key, value]) => ` ${key}="${escapeAttribute(value)}"`).join("");
    out.push(`<${name}${written}>`);
    open.push(name);
    if (name === "style") styleStart = out.length;
  });
  parser.on("closetag", (tag) => {
    if (droppedDepth > 0) {
      droppedDepth--;
      return;
    }
    if (tag.uri !== SVG_NS) return;
    const name = open.pop();
    if (name === "style" && styleStart !== undefined) {
      // The sheet was collected as text; replace it by its safe rules.
      const sheet = out.splice(styleStart).join("");
      out.push(escapeText(safeStyleSheet(sheet)));
      styleStart = undefined;
    }
    out.push(`</${name}>`);
  });
  const onText = (text: string) => {
    if (droppedDepth > 0 || open.length === 0) return;
    const parent = open.at(-1);
    if (styleStart !== undefined) out.push(text);
    else if (parent === "text" || parent === "tspan") out.push(escapeText(text));
  };
  parser.on("text", onText);
  parser.on("cdata", onText);

  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(svg);
  } catch {
    refuse("the SVG is not UTF-8 text");
  }
  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof AppError) throw error;
    refuse("the SVG is not well-formed XML");
  }
  if (!sawRoot) refuse("the file is not an SVG image");
  return Buffer.from(out.join(""), "utf8");
}
