// Request DTOs (CONTRACT §16): each route's ServiceStack request name and the properties a typed request
// carries — path parameters, arguments, an input object's fields at the top level, and a GET's controls.
import { type GraphQLInputType, getNullableType, isInputObjectType, isNonNullType } from 'graphql';
import { pascal } from './names.js';
import type { RouteDef } from './route.types.js';
import type { ResultKind } from './schema.model.js';
import type { Route } from './table.js';

/**
 * The one naming rule: a mutation is its operation in PascalCase (`createCar` → `CreateCar`, `lockCar` →
 * `LockCar`); a GET is `Query` + operation for a search (`QueryCars`) and `Get` + operation otherwise (`GetCar`).
 * It is also the OpenAPI `operationId`.
 */
export function dtoName(def: Pick<RouteDef, 'method' | 'operation'>, kind: ResultKind): string {
  const op = pascal(def.operation);
  if (def.method !== 'GET') return op;
  return kind === 'page' ? `Query${op}` : `Get${op}`;
}

export interface DtoProperty {
  /** As the wire spells it: `Id`, `LicensePlate`, `BookableFromUtc`. */
  name: string;
  /** The GraphQL input type it binds to; `undefined` for a control parameter (text). */
  type: GraphQLInputType | undefined;
  required: boolean;
  description?: string | null | undefined;
}

const EMBED = '`none`, `all` (or `*`), or a comma list of `resource.child` paths.';
const FILTER = 'A comma list of fields: each result then holds `Id` plus exactly those.';

/** What a typed request of this route holds, in the order the binding reads it. */
export function dtoProperties(route: Route): DtoProperty[] {
  const out: DtoProperty[] = [];
  for (const arg of route.field.args) {
    const param = route.pathArgs.get(arg.name);
    if (param) {
      out.push({ name: param, type: arg.type, required: true, description: arg.description });
      continue;
    }
    const named = getNullableType(arg.type);
    if (isInputObjectType(named)) {
      for (const f of Object.values(named.getFields()))
        out.push({
          name: pascal(f.name),
          type: f.type,
          required: isNonNullType(f.type) && f.defaultValue === undefined,
          description: f.description,
        });
      continue;
    }
    out.push({
      name: pascal(arg.name),
      type: arg.type,
      required: isNonNullType(arg.type) && arg.defaultValue === undefined,
      description: arg.description,
    });
  }
  if (route.def.method === 'GET') {
    out.push({ name: 'Embed', type: undefined, required: false, description: EMBED });
    if (route.shape.kind === 'page')
      out.push({ name: 'Filter', type: undefined, required: false, description: FILTER });
  }
  return out;
}
