// The shape of a route table row: one REST route translated into one GraphQL operation.
import type { FieldCode } from './errors.js';
import type { Params } from './request.js';

export const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type Method = (typeof methods)[number];

export interface RouteDef {
  method: Method;
  /** Relative to `/api`, with `{Param}` segments: `/cars/{Id}/lock`. */
  path: string;
  /** The Query or Mutation field it runs. Its arguments, input type and result type come from the schema. */
  operation: string;
  /**
   * Which argument each path parameter fills, when not the parameter's own name in camelCase
   * (`{ UnavailabilityId: 'id', Id: 'carId' }`).
   */
  params?: Readonly<Record<string, string>>;
  /** Path parameters that are not UUIDs but have a form of their own; a malformed one is 400 naming it. */
  formats?: Readonly<Record<string, { pattern: RegExp; description: string }>>;
  /**
   * Arguments filled from parameters with a text form of their own instead of by the generic binding, by argument
   * name (`near` from `near=52.52,13.40` and `radiuskm=5`).
   */
  composed?: Readonly<Record<string, ComposedArgument>>;
  /** Other names a client may use for an argument or input field (`{ events: ['event'] }`). */
  aliases?: Readonly<Record<string, readonly string[]>>;
  /** Seconds a GET may be cached by the client and the server (default 10). */
  ttl?: number;
  /** Resource types (GraphQL names) a mutation changes besides those its result shows. */
  invalidates?: readonly string[];
  /** Resource types a GET's answer is computed from besides those it shows (a report's counts): their mutations make it stale. */
  dependsOn?: readonly string[];
  /** Where a created resource lives when it has no `GET /<plural>/{Id}` route: `/cars/{CarId}/unavailabilities`. */
  location?: string;
  /**
   * Fields of a single returned resource that the envelope carries beside it rather than inside it, under their
   * REST names (`password` → `{"UserAccount":{...},"Password":"..."}`): a value shown once, at creation.
   */
  lift?: readonly string[];
  /** One line for the OpenAPI reference. */
  summary: string;
}

/** One argument built from request parameters by the route's own rule. */
export interface ComposedArgument {
  /** The parameters it reads, as the OpenAPI reference lists them. */
  parameters: readonly { name: string; description: string; type: 'string' | 'number' }[];
  /**
   * The argument's value, or undefined when the request gives none of its parameters. A malformed parameter is
   * reported through `fail`, naming it, and leaves the argument out.
   */
  bind(params: Params, fail: (code: FieldCode, field: string, message: string) => void): unknown;
}

/** A GraphQL type whose REST name differs (`CarBooking` is `Booking`). */
export interface ResourceName {
  type: string;
  rest: string;
}

/** What one file of `routes/` contributes. */
export interface RouteModule {
  names?: readonly ResourceName[];
  routes: readonly RouteDef[];
}
