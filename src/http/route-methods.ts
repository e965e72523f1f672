import type { FastifyInstance } from "fastify";
import FindMyWay, { type HTTPMethod } from "find-my-way";

/**
 * Records every route as it is registered in a router of its own (find-my-way, Fastify's router,
 * with its defaults: the same matching, percent-decoding and trailing-slash rules), so a request
 * for a known path under a method it does not take can be told apart from an unknown path
 * (405 with Allow rather than 404). Must be called before the routes are registered.
 */
export function recordRouteMethods(app: FastifyInstance): (url: string) => string[] {
  const router = FindMyWay();
  const methods = new Set<HTTPMethod>();
  app.addHook("onRoute", (route) => {
    for (const method of ([] as string[]).concat(route.method)) {
      const upper = method.toUpperCase() as HTTPMethod;
      methods.add(upper);
      router.on(upper, route.url, () => undefined);
    }
  });
  return (url) => [...methods].filter((method) => router.find(method, url) !== null).sort();
}
