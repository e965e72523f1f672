import { createHash } from "node:crypto";
import type { LeadCustomField } from "../db/schema.ts";
import { isStorableText, UNSTORABLE_TEXT } from "../domain/storable-text.ts";
import { AppError, invalidPayload } from "../errors.ts";
import type { LeadField } from "./lead-fields.ts";

/** What the lead form or its JSON twin sends, before validation. */
export interface RawLeadSubmission {
  first_name?: unknown;
  last_name?: unknown;
  email?: unknown;
  phone?: unknown;
  message?: unknown;
  custom_fields?: Record<string, unknown>;
  /**
   * A JSON body's `custom_<field_id>` keys, by field id: validated like `custom_fields`; a field
   * sent both ways must carry the same value in both.
   */
  flattened_custom_fields?: Record<string, unknown>;
}

export interface ValidLeadSubmission {
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  message: string;
  customFields: LeadCustomField[];
}

export const SUBMISSION_LIMITS = {
  first_name: 100,
  last_name: 100,
  email: 254,
  phone: 32,
  message: 2000,
  customText: 500,
} as const;

const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;
const PHONE = /^\+?[0-9().\-\s]+$/;
// Control characters other than tab and line breaks (and NUL, which PostgreSQL text refuses).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const CHECKED = new Set(["yes", "true", "on", "1"]);
const UNCHECKED = new Set(["no", "false", "off", "0", ""]);

function text(raw: unknown, field: string, maxLength: number, options: { multiline?: boolean } = {}): string {
  if (raw === undefined || raw === null) return "";
  if (typeof raw !== "string") throw invalidPayload(`${field}: must be a single text value`);
  const value = options.multiline ? raw.replace(/\r\n/g, "\n").trim() : raw.trim();
  if (value.length > maxLength) throw invalidPayload(`${field}: must be at most ${maxLength} characters`);
  if (CONTROL.test(value) || (!options.multiline && /[\n\r\t]/.test(value))) {
    throw invalidPayload(`${field}: contains control characters`);
  }
  if (!isStorableText(value)) throw invalidPayload(`${field}: ${UNSTORABLE_TEXT}`);
  return value;
}

// Format characters (zero-width space, bidi overrides…), other default-ignorable ones (Hangul
// fillers, variation selectors) and whitespace: a value made only of these prints as nothing.
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{White_Space}]/gu;

/** A required field's value must show something: "\u200b" alone is as empty as "". */
function hasVisibleCharacter(value: string): boolean {
  return value.replace(INVISIBLE, "") !== "";
}

function values(raw: unknown, field: string): string[] {
  const list = Array.isArray(raw) ? raw : [raw];
  if (list.length > 50) throw invalidPayload(`${field}: at most 50 values`);
  return list.map((item) => text(item, field, SUBMISSION_LIMITS.customText)).filter(Boolean);
}

function customValue(definition: LeadField, raw: unknown): string[] {
  const field = `custom_fields.${definition.field_id}`;
  const submitted = [...new Set(values(raw, field))];
  if (submitted.length === 0) return [];
  switch (definition.type) {
    case "text":
      if (submitted.length > 1) throw invalidPayload(`${field}: takes one value`);
      return submitted;
    case "select":
      if (submitted.length > 1) throw invalidPayload(`${field}: takes one of the options`);
      return assertOptions(definition, field, submitted);
    case "multiselect":
      return assertOptions(definition, field, submitted);
    case "checkbox":
      // Without options it is a single yes/no box; with options, a group of boxes.
      if (definition.options.length > 0) return assertOptions(definition, field, submitted);
      if (submitted.length > 1) throw invalidPayload(`${field}: takes one value`);
      if (CHECKED.has(submitted[0]!.toLowerCase())) return ["yes"];
      if (UNCHECKED.has(submitted[0]!.toLowerCase())) return [];
      throw invalidPayload(`${field}: must be yes or no`);
  }
  return submitted;
}

function assertOptions(definition: LeadField, field: string, submitted: string[]): string[] {
  const unknown = submitted.find((value) => !definition.options.includes(value));
  if (unknown !== undefined) throw invalidPayload(`${field}: "${unknown}" is not one of the options`);
  return submitted;
}

function requireVisible(value: string, field: "first_name" | "last_name"): string {
  if (!hasVisibleCharacter(value)) throw invalidPayload(`${field}: is required`);
  return value;
}

function emailOf(raw: unknown): string {
  const email = text(raw, "email", SUBMISSION_LIMITS.email);
  if (email && !EMAIL.test(email)) throw invalidPayload("email: is not a valid email address");
  return email;
}

function phoneOf(raw: unknown): string {
  const phone = text(raw, "phone", SUBMISSION_LIMITS.phone);
  if (phone && (!PHONE.test(phone) || phone.replace(/\D/g, "").length < 7)) {
    throw invalidPayload("phone: is not a valid phone number");
  }
  return phone;
}

const NO_WAY_TO_REACH = "email: an email or a phone number is required";
const messageOf = (raw: unknown) => text(raw, "message", SUBMISSION_LIMITS.message, { multiline: true });

/** Checks and trims a submission against the organization's fields; throws 422 naming the field. */
export function validateSubmission(fields: LeadField[], raw: RawLeadSubmission): ValidLeadSubmission {
  const firstName = text(raw.first_name, "first_name", SUBMISSION_LIMITS.first_name);
  const lastName = text(raw.last_name, "last_name", SUBMISSION_LIMITS.last_name);
  requireVisible(firstName, "first_name");
  requireVisible(lastName, "last_name");
  const email = emailOf(raw.email);
  const phone = phoneOf(raw.phone);
  if (!email && !phone) throw invalidPayload(NO_WAY_TO_REACH);
  const message = messageOf(raw.message);

  const nested = customValues(fields, raw.custom_fields ?? {});
  const flattened = customValues(fields, raw.flattened_custom_fields ?? {});
  const customFields: LeadCustomField[] = [];
  for (const definition of fields) {
    const id = definition.field_id;
    const sent = nested.get(id);
    const flat = flattened.get(id);
    if (sent !== undefined && flat !== undefined && !sameValues(sent, flat)) {
      throw invalidPayload(
        `custom_fields.${id}: sent as custom_${id} and in custom_fields with different values; send it once`,
      );
    }
    const value = sent ?? flat ?? [];
    if (value.length === 0) continue;
    customFields.push({ field_id: id, field_label: definition.label, type: definition.type, value });
  }
  return { firstName, lastName, email, phone, message, customFields };
}

/** A field the form refuses, named as the form names it (`email`, `custom_<field_id>`). */
export interface FieldProblem {
  field: string;
  /** The refusal as the API words it ("email: is not a valid email address"). */
  detail: string;
}

/**
 * Every field of a form post that would be refused, each with its first reason, where
 * `validateSubmission` stops at the first field: a homeowner corrects them all in one go.
 */
export function formProblems(fields: LeadField[], raw: RawLeadSubmission): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const check = <T>(field: string, run: () => T): T | undefined => {
    try {
      return run();
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 422) throw error;
      problems.push({ field, detail: error.detail ?? "" });
      return undefined;
    }
  };
  for (const field of ["first_name", "last_name"] as const) {
    check(field, () => requireVisible(text(raw[field], field, SUBMISSION_LIMITS[field]), field));
  }
  const email = check("email", () => emailOf(raw.email));
  const phone = check("phone", () => phoneOf(raw.phone));
  if (email === "" && phone === "") problems.push({ field: "email", detail: NO_WAY_TO_REACH });
  check("message", () => messageOf(raw.message));
  const custom = raw.custom_fields ?? {};
  for (const definition of fields) {
    if (!Object.hasOwn(custom, definition.field_id)) continue;
    check(`custom_${definition.field_id}`, () => customValue(definition, custom[definition.field_id]));
  }
  return problems;
}

/**
 * What makes two submissions the same lead: every validated value (trimmed, a checkbox's "on" as
 * "yes", custom fields by id, a multiselect's values in any order). Labels and field types are
 * the form's, not the homeowner's, and stay out.
 */
export function submissionFingerprint(submission: ValidLeadSubmission): string {
  const content = [
    submission.firstName,
    submission.lastName,
    submission.email,
    submission.phone,
    submission.message,
    [...submission.customFields]
      .sort((a, b) => (a.field_id < b.field_id ? -1 : 1))
      .map((field) => [field.field_id, [...field.value].sort()]),
  ];
  return createHash("sha256").update(JSON.stringify(content)).digest("hex");
}

/** Each submitted custom field's checked values (empty: sent blank or unchecked), by field id. */
function customValues(fields: LeadField[], submitted: Record<string, unknown>): Map<string, string[]> {
  const known = new Map(fields.map((field) => [field.field_id, field]));
  const unknownId = Object.keys(submitted).find((id) => !known.has(id));
  if (unknownId !== undefined) {
    throw invalidPayload(`custom_fields.${unknownId}: is not a field of this form`);
  }
  const checked = new Map<string, string[]>();
  for (const definition of fields) {
    if (!Object.hasOwn(submitted, definition.field_id)) continue;
    checked.set(definition.field_id, customValue(definition, submitted[definition.field_id]));
  }
  return checked;
}

/** The same values, in any order (a multiselect's order carries no meaning). */
function sameValues(a: string[], b: string[]): boolean {
  const set = new Set(a);
  return a.length === b.length && b.every((value) => set.has(value));
}

function flatCustomFields(body: Record<string, unknown>): Record<string, unknown> {
  const custom: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key.startsWith("custom_") && key !== "custom_fields") custom[key.slice("custom_".length)] = value;
  }
  return custom;
}

/**
 * The JSON body nests custom fields under `custom_fields` and may flatten them as
 * `custom_<field_id>` like the form: both forms are validated, and a field sent both ways with
 * different values is refused (neither silently wins).
 */
export function submissionFromJson(body: RawLeadSubmission & Record<string, unknown>): RawLeadSubmission {
  return {
    ...body,
    custom_fields: body.custom_fields ?? {},
    flattened_custom_fields: flatCustomFields(body),
  };
}

/** The form posts custom fields as `custom_<field_id>` keys. */
export function submissionFromForm(form: Record<string, unknown>): RawLeadSubmission {
  const custom = flatCustomFields(form);
  return {
    first_name: form.first_name,
    last_name: form.last_name,
    email: form.email,
    phone: form.phone,
    message: form.message,
    custom_fields: custom,
  };
}
