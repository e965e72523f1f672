import type { TSchema } from "typebox";
import { Compile, type Validator } from "typebox/compile";

const validators = new WeakMap<TSchema, Validator>();

/**
 * The schema's compiled validator, compiled on first use and kept: checks on hot paths (every
 * job enqueued, every answer from an outside service) never compile twice.
 */
export function compiledSchema(schema: TSchema): Validator {
  let validator = validators.get(schema);
  if (!validator) {
    validator = Compile(schema) as unknown as Validator;
    validators.set(schema, validator);
  }
  return validator;
}
