/**
 * JSON that parses but cannot be read the way its sender meant: an object naming one key twice
 * (`JSON.parse` keeps the last, a proxy or validator in front may read the first: a body with
 * `"dry_run":true,"dry_run":false` would pass one as a dry run and mail through the other), and
 * a number beyond what a double holds exactly (`9007199254740993` arrives as …992, so two
 * different CRM deal ids would be one conversion). Both are refused, naming where they sit.
 */

export interface AmbiguousValue {
  path: string;
  reason: string;
}

export const DUPLICATE_KEY = "this key appears more than once in its object; send each key once";
export const INEXACT_NUMBER =
  "this number is too large to be read exactly (beyond ±9007199254740991); send it as a string";

/** The first ambiguous value of `text`, already parsed into `parsed`, or undefined. */
export function findAmbiguousValue(text: string, parsed: unknown): AmbiguousValue | undefined {
  const { keys, inexactNumber } = surveyParsed(parsed);
  if (keys !== countKeysInText(text)) return findDuplicateKey(text);
  if (inexactNumber) return findInexactNumber(parsed);
  return undefined;
}

const isInexact = (value: number) =>
  !Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value));

/** How many keys the parsed objects hold, and whether any number lost digits. Iterative. */
function surveyParsed(root: unknown): { keys: number; inexactNumber: boolean } {
  let keys = 0;
  let inexactNumber = false;
  const pending: unknown[] = [root];
  for (let value = pending.pop(); pending.length > 0 || value !== undefined; value = pending.pop()) {
    if (typeof value === "number") {
      if (isInexact(value)) inexactNumber = true;
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (value !== null && typeof value === "object") {
      for (const key in value) {
        keys++;
        pending.push((value as Record<string, unknown>)[key]);
      }
    }
  }
  return { keys, inexactNumber };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/** Every `:` outside a string of valid JSON text separates one key from its value. */
function countKeysInText(text: string): number {
  let count = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === COLON) {
      count++;
    }
  }
  return count;
}

interface Container {
  path: string;
  /** The keys seen so far (objects) or undefined (arrays). */
  keys: Set<string> | undefined;
  index: number;
}

/** Walks valid JSON text keeping the path, to name the repeated key. */
function findDuplicateKey(text: string): AmbiguousValue | undefined {
  const stack: Container[] = [];
  let expectingKey = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    const container = stack[stack.length - 1];
    if (char === '"') {
      const end = endOfString(text, index);
      if (expectingKey && container?.keys) {
        const raw = text.slice(index, end + 1);
        const key = raw.includes("\\") ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        const path = container.path ? `${container.path}.${key}` : key;
        if (container.keys.has(key)) return { path, reason: DUPLICATE_KEY };
        container.keys.add(key);
        expectingKey = false;
        stack.push({ path, keys: undefined, index: -1 });
      }
      index = end;
    } else if (char === "{" || char === "[") {
      const path = childPath(stack);
      stack.push({ path, keys: char === "{" ? new Set() : undefined, index: 0 });
      expectingKey = char === "{";
    } else if (char === "}" || char === "]") {
      popValueSlot(stack);
      stack.pop();
      popValueSlot(stack);
    } else if (char === ",") {
      popValueSlot(stack);
      const current = stack[stack.length - 1];
      expectingKey = current?.keys !== undefined;
      if (current && !current.keys) current.index++;
    }
  }
  return undefined;
}

/** A key pushes a slot for its value; the slot ends at the `,` or `}` that follows the value. */
function popValueSlot(stack: Container[]): void {
  if (stack[stack.length - 1]?.index === -1) stack.pop();
}

function childPath(stack: Container[]): string {
  const parent = stack[stack.length - 1];
  if (!parent) return "";
  return parent.keys === undefined && parent.index >= 0 ? `${parent.path}[${parent.index}]` : parent.path;
}

function endOfString(text: string, start: number): number {
  for (let index = start + 1; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === BACKSLASH) index++;
    else if (code === QUOTE) return index;
  }
  return text.length - 1;
}

function findInexactNumber(root: unknown): AmbiguousValue | undefined {
  const pending: Array<{ value: unknown; path: string }> = [{ value: root, path: "" }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path } = next;
    if (typeof value === "number") {
      if (isInexact(value)) return { path: path || "body", reason: INEXACT_NUMBER };
    } else if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        pending.push({ value: value[index], path: `${path}[${index}]` });
      }
    } else if (value !== null && typeof value === "object") {
      for (const [key, child] of Object.entries(value)) {
        pending.push({ value: child, path: path ? `${path}.${key}` : key });
      }
    }
  }
  return undefined;
}
