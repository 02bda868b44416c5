// Route resolution in front of the handler: the pretty routes (`/api/cars/{Id}`), then ServiceStack's predefined
// routes `/api/{DtoName}` and `/json/reply/{DtoName}` (CONTRACT §16). A predefined route is one more address of
// the same row: it matches with no path parameters, and the handler reads those from the request's properties.
import type { Match, RouteTable } from './table.js';

/** "Add ServiceStack Reference": where ServiceStack serves its TypeScript DTOs. */
export const TYPES_PATH = '/types/typescript';

/** ServiceStack's JSON reply route, outside the facade's `/api` prefix. */
export const REPLY_PATH = '/json/reply';

export interface Resolver {
  /** Whether the path is the facade's to answer. */
  owns(path: string): boolean;
  resolve(method: string, path: string): Match;
}

const segmentsOf = (path: string): string[] => path.split('/').filter((s) => s !== '');

export function routeResolver(table: RouteTable, prefix: string): Resolver {
  const byDto = (root: string, method: string, name: string | undefined): Match => {
    const route = name === undefined ? undefined : table.byDto(name);
    if (!route) return undefined;
    // The DTO's own spelling, whatever case the request used.
    const template = `${root}/${route.dto}`;
    return route.def.method === method
      ? { route, params: new Map(), template }
      : { allow: [route.def.method], template };
  };
  const under = (path: string, root: string) => path === root || path.startsWith(`${root}/`);

  return {
    owns: (path) => under(path, prefix) || under(path, REPLY_PATH),
    resolve(method, path) {
      if (under(path, REPLY_PATH)) {
        const rest = segmentsOf(path.slice(REPLY_PATH.length));
        return rest.length === 1 ? byDto(REPLY_PATH, method, rest[0]) : undefined;
      }
      const relative = path.slice(prefix.length);
      const pretty = table.match(method, relative);
      if (pretty) return { ...pretty, template: `${prefix}${pretty.template}` };
      // No pretty route has a single segment that is a DTO name: those all begin with a verb.
      const rest = segmentsOf(relative);
      return rest.length === 1 ? byDto(prefix, method, rest[0]) : undefined;
    },
  };
}
