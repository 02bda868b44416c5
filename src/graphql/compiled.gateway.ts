// Apollo Server's execution handed to the execution service (execution.ts) through its gateway interface, the one
// hook Apollo offers for replacing `execute`: parsing, validation, plugins, error formatting and HTTP stay Apollo's.
import type { GatewayInterface } from '@apollo/server-gateway-interface';
import type { GraphQLSchema } from 'graphql';
import type { Context } from './context.js';
import type { Execution } from './execution.js';

export function compiledGateway(
  schema: GraphQLSchema,
  execution: Pick<Execution, 'execute'>,
): GatewayInterface {
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
        executor: (rc) =>
          execution.execute({
            document: rc.document,
            text: rc.source,
            operationName: rc.operationName,
            variables: rc.request.variables ?? {},
            context: rc.context as Context,
          }),
      };
    },
    async stop() {},
  };
}
