import { invalidFields } from "../errors.ts";

/**
 * The one rule for a password a person chooses (accepting an invitation, changing it, resetting
 * it), on top of its length (auth-settings.ts): NIST SP 800-63B 3.1.1.2 asks that a new password
 * be checked against passwords known from breaches, repeated or sequential characters, and words
 * of the context (the service's name, the person's email or name), with no rules of composition.
 * So a password is refused when, ignoring case, it is
 * - one of the ~49,000 most used passwords that the `@zxcvbn-ts/language-common` list holds (of ten
 *   characters or more, 1,557 of them: "password123", "1q2w3e4r5t", "qwertyuiop"...);
 * - one character repeated, or a straight run up or down ("aaaaaaaaaa", "1234567890", "0987654321");
 * - the email, or its name before the @, the person's name or "porchlight" with only digits and
 *   signs around it ("porchlight2026", "rita.smith!!").
 * Each is a lookup or a pass over at most 128 characters: no scoring that a crafted password could
 * make slow. A strength score (zxcvbn) was weighed and left: it costs up to a second of CPU on a
 * crafted 128 characters, and refuses passphrases people pick on purpose.
 */

export interface PasswordContext {
  email: string;
  name?: string;
}

/** The refusal of `password` for the field the form names, or undefined when it may be used. */
export async function refusalOfPassword(
  field: string,
  password: string,
  context: PasswordContext,
): Promise<ReturnType<typeof invalidFields>> {
  const why = await whyRefused(password, context);
  return why ? invalidFields({ [field]: why }) : undefined;
}

async function whyRefused(password: string, context: PasswordContext): Promise<string | undefined> {
  const lower = password.toLowerCase();
  if ((await commonPasswords()).has(lower))
    return "This is one of the most used passwords, tried first by anyone guessing. Choose another (a few unrelated words work well).";
  if (isRunOfOneStep(lower))
    return "A run of one character or of the next ones on the keyboard (1234567890, aaaaaaaaaa) is guessed at once. Choose another.";
  if (wordsOfContext(context).includes(lettersOf(lower)))
    return "Your email, your name or Porchlight's is guessed first. Choose a password that does not spell them.";
  return undefined;
}

let loaded: Promise<Set<string>> | undefined;

/** The list, loaded on the first password chosen (~50 ms, some MB held), not at every start. */
function commonPasswords(): Promise<Set<string>> {
  loaded ??= import("@zxcvbn-ts/language-common").then((module) => {
    // The package's CommonJS build (the one Node and the server bundle load) arrives as `default`.
    const { dictionary } = (module.dictionary ? module : module.default) as typeof module;
    return new Set((dictionary["passwords-common"] as string[]).map((word) => word.toLowerCase()));
  });
  return loaded;
}

/** Every character one step from the one before it, always the same step (0, +1 or -1). */
function isRunOfOneStep(text: string): boolean {
  const codes = [...text].map((character) => character.codePointAt(0)!);
  const step = codes[1]! - codes[0]!;
  const oneStep =
    Math.abs(step) <= 1 && codes.every((code, index) => index === 0 || code - codes[index - 1]! === step);
  return oneStep || isKeyboardRun(text);
}

/** "1234567890" ends with 0, the key after 9; "qwertyuiop" and its rows, forwards or backwards. */
const KEYBOARD_ROWS = ["1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm"];

function isKeyboardRun(text: string): boolean {
  return KEYBOARD_ROWS.some((row) => {
    const twice = row + row;
    const backwards = [...twice].reverse().join("");
    return twice.includes(text) || backwards.includes(text);
  });
}

const lettersOf = (text: string) => text.replace(/[^\p{L}]/gu, "");

/** The words a guesser tries first for this person: their email's name, their name, the service's. */
function wordsOfContext({ email, name }: PasswordContext): string[] {
  const localPart = email.split("@")[0] ?? "";
  const words = [lettersOf(email.toLowerCase()), lettersOf(localPart.toLowerCase()), "porchlight"];
  if (name) words.push(lettersOf(name.toLowerCase()));
  return words.filter((word) => word.length >= 3);
}
