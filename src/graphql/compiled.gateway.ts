// Apollo Server's execution handed to compiled documents (src/graphql/compiled.ts) through its gateway
// interface, the one hook Apollo offers for replacing `execute`: parsing, validation, plugins, error formatting
// and HTTP stay Apollo's. A document graphql-jit cannot run, or whose variables it refuses, runs in graphql-js.
import type { GatewayInterface } from '@apollo/server-gateway-interface';
import { execute, type GraphQLSchema } from 'graphql';
import type { CompiledDocuments } from './compiled.js';

export function compiledGateway(schema: GraphQLSchema, documents: CompiledDocuments): GatewayInterface {
  let announce: ((s: { apiSchema: GraphQLSchema; coreSupergraphSdl: string }) => void) | undefined;
  return {
    onSchemaLoadOrUpdate(callback) {
      announce = callback;
      return () => {
        announce = undefined;
      };
    },
    async load() {
      announce?.({ apiSchema: schema, coreSupergraphSdl: '' });
      return {
        executor: async (rc) => {
          const variables = rc.request.variables ?? {};
          const compiled = await documents.run(
            rc.document,
            variables,
            rc.context,
            rc.source,
            rc.operationName,
          );
          if (compiled) return compiled;
          return execute({
            schema,
            document: rc.document,
            variableValues: variables,
            contextValue: rc.context,
            operationName: rc.operationName,
          });
        },
      };
    },
    async stop() {},
  };
}
