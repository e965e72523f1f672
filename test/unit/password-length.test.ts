import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../../src/app-api/auth-settings.ts";
import {
  MIN_PASSWORD_LENGTH as APP_MIN_PASSWORD_LENGTH,
  newPasswordRule,
} from "../../web/src/ui/password-rules.ts";

// The web build does not import server code, so the app's copy of the rule is held to the service's here.
test("the app asks for the password length the service accepts", () => {
  assert.equal(APP_MIN_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH);
  assert.equal(newPasswordRule("x".repeat(MIN_PASSWORD_LENGTH)), null);
  assert.equal(
    newPasswordRule("x".repeat(MIN_PASSWORD_LENGTH - 1)),
    `Use at least ${MIN_PASSWORD_LENGTH} characters`,
  );
  assert.ok(MAX_PASSWORD_LENGTH > MIN_PASSWORD_LENGTH);
});
