import type { TypedApp } from './app.js';

/** Registers one route of an area (or the few methods of one path) on the area's plugin, given the area's services. */
export type RouteRegistrar<Deps> = (app: TypedApp, deps: Deps) => void;

/** Registers an area's routes in the order listed: the order they take in the OpenAPI document. */
export function registerRoutes<Deps>(app: TypedApp, routes: readonly RouteRegistrar<Deps>[], deps: Deps): void {
  for (const register of routes) register(app, deps);
}
