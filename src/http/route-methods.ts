import type { FastifyInstance } from "fastify";

interface RoutePattern {
  path: RegExp;
  methods: Set<string>;
}

/** `/l/:token` → /^\/l\/[^/]+$/ (a parameter is one path segment). */
function patternOf(url: string): RegExp {
  const escaped = url
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${escaped}/?$`);
}

/**
 * Records every route as it is registered, so a request for a known path with a method it does
 * not take can be told apart from an unknown path (405 with Allow rather than 404). Must be
 * called before the routes are registered.
 */
export function recordRouteMethods(app: FastifyInstance): (path: string) => string[] {
  const routes = new Map<string, RoutePattern>();
  app.addHook("onRoute", (route) => {
    const entry = routes.get(route.url) ?? { path: patternOf(route.url), methods: new Set<string>() };
    for (const method of ([] as string[]).concat(route.method)) entry.methods.add(method.toUpperCase());
    routes.set(route.url, entry);
  });
  return (path) => {
    const allowed = new Set<string>();
    for (const route of routes.values()) {
      if (route.path.test(path)) for (const method of route.methods) allowed.add(method);
    }
    return [...allowed].sort();
  };
}
