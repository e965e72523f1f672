import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fitText, layoutText, textWidth, wrapText } from "../../src/render/text.ts";

const style = { size: 14, bold: true };

describe("card text layout", () => {
  it("cuts a word longer than the line at the longest prefix that fits with its ellipsis", () => {
    const line = wrapText("x".repeat(2000), style, 200, 3)[0] ?? "";
    assert.ok(line.endsWith("…"));
    assert.ok(textWidth(line, style.size, style.bold) <= 200);
    const oneMore = `${line.slice(0, -1)}x…`;
    assert.ok(textWidth(oneMore, style.size, style.bold) > 200, "the cut is the longest that fits");
  });

  it("ends the last kept line in an ellipsis on overflow and keeps words that fit whole", () => {
    const lines = wrapText("Jane Q. Public-Homeowner of the Large Estate on the Hill", style, 120, 2);
    assert.equal(lines.length, 2);
    assert.ok(lines[1]!.endsWith("…"));
    for (const line of lines) assert.ok(textWidth(line, style.size, style.bold) <= 120, line);
    assert.deepEqual(wrapText("Jane Doe", style, 200, 2), ["Jane Doe"]);
  });

  it("breaks a word too long for the line after its hyphens before cutting it", () => {
    const name = "Lily Munster-Hernandez-O'Connor-Wolfeschlegelsteinhausen";
    const plain = { size: 10, bold: false };
    const width = textWidth("Munster-Hernandez-O'Connor-Wolfe", plain.size, plain.bold);
    const lines = wrapText(name, plain, width, 2);
    assert.deepEqual(lines, ["Lily Munster-Hernandez-O'Connor-", "Wolfeschlegelsteinhausen"]);
    for (const line of lines) assert.ok(textWidth(line, plain.size, plain.bold) <= width, line);
    const narrow = textWidth("Munster-Hernandez-", plain.size, plain.bold);
    assert.deepEqual(wrapText(name, plain, narrow, 2), ["Lily Munster-", "Hernandez-…"]);
    const counted = layoutText(name, plain, narrow, 2);
    assert.equal(counted.printed, "Lily Munster-Hernandez-".length, "a break after a hyphen adds no space");
    assert.equal(counted.characters, name.length);
    assert.deepEqual(wrapText("Call (217) 555-0123 today", plain, 400, 2), ["Call (217) 555-0123 today"]);
  });

  it("never splits a surrogate pair when cutting", () => {
    const { lines } = fitText("x😀".repeat(500), {
      bold: false,
      maxSize: 20,
      minSize: 10,
      maxWidth: 150,
      maxLines: 1,
    });
    assert.equal(lines.length, 1);
    assert.ok(lines[0]!.endsWith("…"));
    assert.ok(!/[\uD800-\uDBFF]…$/.test(lines[0]!), "no lone high surrogate before the ellipsis");
  });

  it("shrinks a name before cutting it, and cuts only at the smallest size", () => {
    const name = "Riverside Roofing, Gutters & Exteriors Company";
    const options = { bold: true, maxSize: 12, minSize: 9, maxWidth: 150, maxLines: 2 };
    const fitted = fitText(name, options);
    assert.ok(fitted.size < 12, "12 pt needs a third line");
    assert.equal(fitted.lines.join(" "), name, "nothing cut once it fits");
    assert.ok(fitted.lines.length <= 2);
    const long = fitText(`${name} of the Greater Springfield Metropolitan Area`, options);
    assert.equal(long.size, 9);
    assert.equal(long.lines.length, 2);
    assert.ok(long.lines[1]!.endsWith("…"));
    const word = fitText("Superlongcompanynamewithoutspaces", { ...options, maxWidth: 220, maxLines: 1 });
    assert.ok(word.size < 12, "a single word too wide shrinks too");
  });
});
