import type { AuthDeps } from "./auth-settings.ts";
import type { createBetterAuth } from "./better-auth.ts";

/**
 * Better Auth and what it pulls in (kysely, zod, jose: ~600 modules, about a second of a loaded
 * machine's start and tens of MB) load on the first call that needs them (a sign-in, a session
 * check), not at start: the developer API, landing pages and the workers never do. The object
 * stands in for the instance: `handler`, every `api` endpoint and `$context` wait for the load,
 * so callers use it as they would the instance itself.
 */
export function createAuth(deps: AuthDeps): Auth {
  let instance: Promise<Auth> | undefined;
  const load = () => {
    instance ??= import("./better-auth.ts").then(({ createBetterAuth }) => createBetterAuth(deps));
    return instance;
  };
  const api = new Proxy({} as Auth["api"], {
    get:
      (_target, endpoint: string) =>
      async (...args: unknown[]) => {
        const auth = await load();
        return (auth.api[endpoint as keyof Auth["api"]] as (...a: unknown[]) => unknown)(...args);
      },
  });
  return {
    handler: async (request: Request) => (await load()).handler(request),
    api,
    get $context() {
      return load().then((auth) => auth.$context);
    },
  } as Auth;
}

export type Auth = ReturnType<typeof createBetterAuth>;
