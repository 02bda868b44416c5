// The GraphQL documents the scenarios send (S4) and the peer runs: the REST facade's own selection for a car
// with every embed, built from the SDL by the facade's code, so all of them ask for exactly the same fields.
import { makeExecutableSchema } from '@graphql-tools/schema';
import { type GraphQLObjectType, type GraphQLSchema, print } from 'graphql';
import { nodeSelection, pageSelection } from '../../rest-facade/selection.js';
import { loadTypeDefs } from '../../src/graphql/schema.js';

export const sdlSchema = (): GraphQLSchema => makeExecutableSchema({ typeDefs: loadTypeDefs() });

export function carDocuments(schema: GraphQLSchema): { search: string; one: string } {
  const car = schema.getType('Car') as GraphQLObjectType;
  const nodes = nodeSelection(car, { mode: 'all', pairs: new Set() });
  const page = pageSelection(schema.getType('CarPage') as GraphQLObjectType, nodes);
  return {
    search: `query Rest($limit: Int, $offset: Int) { cars(limit: $limit, offset: $offset) ${print(page)} }`,
    one: `query Rest($id: UUID!) { car(id: $id) ${print(nodes)} }`,
  };
}
