import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { DUPLICATE_KEY, findAmbiguousValue, INEXACT_NUMBER } from "../../src/http/ambiguous-json.ts";

const check = (text: string) => findAmbiguousValue(text, JSON.parse(text));

/** JSON values whose numbers are all exact (what a client means is what JSON.parse reads). */
const exactJson = fc.jsonValue().filter((value) => {
  const text = JSON.stringify(value);
  return !/\d{16}|e[+-]?\d/i.test(text.replace(/"(?:[^"\\]|\\.)*"/g, '""'));
});

describe("ambiguous JSON (repeated keys, inexact numbers)", () => {
  it("finds nothing in any serialized value, however keys, strings and colons are spelled", () => {
    fc.assert(
      fc.property(exactJson, fc.constantFrom(0, 2), (value, indent) => {
        assert.equal(check(JSON.stringify(value, null, indent)), undefined);
      }),
      { numRuns: 500 },
    );
  });

  it("names a key repeated in any object, at any depth", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), exactJson, { minKeys: 1, maxKeys: 5 }),
        fc.array(fc.constantFrom("array", "object"), { maxLength: 4 }),
        (object, nesting) => {
          const key = Object.keys(object)[0]!;
          const inner = JSON.stringify(object);
          const repeated = `${inner.slice(0, -1)},${JSON.stringify(key)}:null}`;
          let text = repeated;
          let path = key;
          let startsWithIndex = false;
          for (const layer of nesting) {
            const rest = startsWithIndex ? path : `.${path}`;
            text = layer === "array" ? `[0,${text}]` : `{"k":${text}}`;
            path = layer === "array" ? `[1]${rest}` : `k${rest}`;
            startsWithIndex = layer === "array";
          }
          const found = check(text);
          assert.equal(found?.reason, DUPLICATE_KEY, text);
          assert.equal(found?.path, path, text);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reads escaped spellings of one key as the same key", () => {
    assert.equal(check('{"a":1,"\\u0061":2}')?.path, "a");
    assert.equal(check('{"x":{"\\"":1,"\\u0022":2}}')?.path, 'x."');
  });

  it("names integers beyond 2^53 - 1 and numbers out of a double's range; keeps exact ones", () => {
    for (const [text, path] of [
      ['{"id":9007199254740992}', "id"],
      ['{"a":[1,{"b":-9007199254740993}]}', "a[1].b"],
      ['{"n":1e400}', "n"],
      ['{"n":12345678901234567890.5}', "n"],
    ] as const) {
      const found = check(text);
      assert.deepEqual(found, { path, reason: INEXACT_NUMBER }, text);
    }
    for (const text of ['{"n":9007199254740991}', '{"n":0.1}', '{"n":1e-400}', '{"n":"9007199254740993"}']) {
      assert.equal(check(text), undefined, text);
    }
  });
});
