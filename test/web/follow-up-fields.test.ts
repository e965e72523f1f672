import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { formFieldOf } from "../../web/src/modules/automations/form-model.ts";

describe("the builder puts a server's refusal of a follow-up back on its input", () => {
  test("a step's fields as the server names them (steps[N]…) are the form's follow_ups.N…", () => {
    assert.equal(formFieldOf("steps[1].template.message"), "follow_ups.1.message");
    assert.equal(formFieldOf("steps[0].template.headline"), "follow_ups.0.headline");
    assert.equal(formFieldOf("steps[2].delay_days"), "follow_ups.2.delay_days");
  });

  test("the dotted form is read too, and the first card's fields are left as they are", () => {
    assert.equal(formFieldOf("steps.1.template.offer"), "follow_ups.1.offer");
    assert.equal(formFieldOf("steps.0.delay_days"), "follow_ups.0.delay_days");
    assert.equal(formFieldOf("template.headline"), "headline");
  });
});
