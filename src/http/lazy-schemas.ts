import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";
import type { Ajv, AnySchema, ValidateFunction } from "ajv";

/**
 * Route schemas are compiled when a route first uses them, not when the app starts. Fastify
 * compiles every route's validators (ajv) and response serializers (fast-json-stringify) at
 * `ready()`: about a third of the start-up CPU, and the memory of code for routes an instance may
 * never serve (an API pod is never asked for landing pages' admin routes, say). The first request
 * to a route pays its compilation (a few milliseconds) once.
 *
 * `compileAll()` compiles whatever is still pending, so a test can prove that every schema compiles.
 */
export interface LazySchemas {
  /** An ajv plugin (Fastify's `ajv.plugins`): `ajv.compile` returns a validator compiled on first call. */
  ajvPlugin(ajv: Ajv): Ajv;
  /** Fastify's `schemaController.compilersFactory.buildSerializer`, compiling on first call. */
  buildSerializer: ReturnType<typeof SerializerSelector>;
  /** Compiles every schema not compiled yet; returns how many that was. */
  compileAll(): number;
}

export function createLazySchemas(): LazySchemas {
  const pending = new Set<() => unknown>();

  function onFirstCall<T>(compile: () => T): () => T {
    let compiled: T | undefined;
    const get = () => {
      if (compiled === undefined) {
        compiled = compile();
        pending.delete(get);
      }
      return compiled;
    };
    pending.add(get);
    return get;
  }

  const ajvPlugin = (ajv: Ajv) => {
    const compile = ajv.compile.bind(ajv);
    ajv.compile = ((schema: AnySchema, meta?: boolean) => {
      const id = typeof schema === "object" ? schema.$id : undefined;
      // Another route may have compiled a schema with the same $id meanwhile: ajv refuses a second.
      const compiled = onFirstCall(
        () => (id ? (ajv.getSchema(id) as ValidateFunction | undefined) : undefined) ?? compile(schema, meta),
      );
      // Fastify reads `errors` off the function it was given after a failed validation.
      const validate = function (this: unknown, ...args: Parameters<ValidateFunction>) {
        const validator = compiled();
        const valid = validator.apply(this, args);
        validate.errors = validator.errors;
        return valid;
      } as ValidateFunction;
      validate.errors = null;
      validate.schema = schema;
      return validate;
    }) as Ajv["compile"];
    return ajv;
  };

  const eagerSerializers = SerializerSelector();
  const buildSerializer: LazySchemas["buildSerializer"] = (externalSchemas, options) => {
    const compileSerializer = eagerSerializers(externalSchemas, options);
    return (route) => {
      const compiled = onFirstCall(() => compileSerializer(route));
      return (document) => compiled()(document);
    };
  };

  return {
    ajvPlugin,
    buildSerializer,
    compileAll: () => {
      const waiting = [...pending];
      for (const compile of waiting) compile();
      return waiting.length;
    },
  };
}

declare module "fastify" {
  interface FastifyInstance {
    /** Compiles every route schema not compiled yet (tests prove they all compile); returns the count. */
    compileAllSchemas(): number;
  }
}
