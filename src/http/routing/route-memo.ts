import type { ExecutionContext, Type } from '@nestjs/common';

/** A route's handler, as Nest's execution context names it. */
export type RouteHandler = ReturnType<ExecutionContext['getHandler']>;

/**
 * What `read` makes of a route's metadata, read on the route's first request and kept:
 * decorators do not change once the app runs, and the guards would otherwise read the
 * same metadata (reflect-metadata lookups up the prototype chain) on every request.
 */
export function memoByRoute<T>(
  read: (handler: RouteHandler, controller: Type) => T,
): (context: ExecutionContext) => T {
  const byController = new WeakMap<Type, WeakMap<RouteHandler, { value: T }>>();
  return (context) => {
    const controller = context.getClass();
    const handler = context.getHandler();
    let byHandler = byController.get(controller);
    if (!byHandler) byController.set(controller, (byHandler = new WeakMap()));
    let memo = byHandler.get(handler);
    if (!memo) byHandler.set(handler, (memo = { value: read(handler, controller) }));
    return memo.value;
  };
}
