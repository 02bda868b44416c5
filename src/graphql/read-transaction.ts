// A query's reads in one transaction of its car share's scope (src/db/scope.ts): one BEGIN, SET LOCAL and COMMIT
// per execution instead of per statement (a page's loaders run several statements). Mutations keep a transaction
// per mutation field (schema.ts); their payload's reads, like subscription events', are wrapped one by one.
import { type DocumentNode, getOperationAST } from 'graphql';
import type { Context } from './context.js';

const isQuery = (document: DocumentNode, operationName?: string | null): boolean =>
  getOperationAST(document, operationName ?? undefined)?.operation === 'query';

export async function inReadTransaction<T>(
  document: DocumentNode,
  operationName: string | null | undefined,
  contextValue: unknown,
  run: () => Promise<T>,
): Promise<T> {
  const ctx = contextValue as Partial<Context> | undefined;
  const outer = ctx?.em;
  if (!ctx || !outer || outer.getTransactionContext() || !isQuery(document, operationName)) return run();
  return outer.transactional(async (em) => {
    ctx.em = em;
    try {
      return await run();
    } finally {
      ctx.em = outer;
    }
  });
}
