import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { insertMergeField } from "../../web/src/modules/automations/merge-insert.ts";

/** The message after inserting `token` at the `|` of `marked` (a caret, no selection). */
function insertAtBar(marked: string, token = "{{street}}") {
  const caret = marked.indexOf("|");
  return insertMergeField(marked.replace("|", ""), caret, caret, token).text;
}

describe("Insert merge field keeps the field apart from the words around it", () => {
  test("a space goes between the field and a word it would touch", () => {
    assert.equal(insertAtBar("|Scan the code"), "{{street}} Scan the code");
    assert.equal(insertAtBar("Hi|"), "Hi {{street}}");
    assert.equal(insertAtBar("Thanks,|Scan"), "Thanks, {{street}} Scan");
    assert.equal(insertAtBar("{{city}}|"), "{{city}} {{street}}");
  });

  test("no second space where one is already, and none before punctuation", () => {
    assert.equal(insertAtBar("Hi |, scan"), "Hi {{street}}, scan");
    assert.equal(insertAtBar("Your home on | looks great"), "Your home on {{street}} looks great");
    assert.equal(insertAtBar("|"), "{{street}}");
    assert.equal(insertAtBar("Line one\n|Line two"), "Line one\n{{street}} Line two");
  });

  test("a selection is replaced, and the token's start is said", () => {
    const result = insertMergeField("Hi NAME!", 3, 7, "{{client_name}}");
    assert.deepEqual(result, { text: "Hi {{client_name}}!", tokenAt: 3 });
    assert.equal(insertMergeField("Hi|", 2, 2, "{{city}}").tokenAt, 3);
  });
});
