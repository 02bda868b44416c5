// The body of a POST to /graphql: JSON up to 1 MiB. A body that is not JSON is answered in GraphQL's own error
// shape, since a GraphQL client reads `errors`, not the REST envelope.
import { bodyParser } from '@koa/bodyparser';
import type Koa from 'koa';
import { clientWentAway } from '../shared/client-gone.js';

const parse = bodyParser({ jsonLimit: '1mb', enableTypes: ['json'] });

export const graphqlBody: Koa.Middleware = async (ctx, next) => {
  let parsed = false;
  try {
    await parse(ctx, async () => {
      parsed = true;
    });
  } catch (err) {
    // Other refusals (413, 415) keep the edge's shape, and a client that left is the edge's 499; only a body that
    // does not parse is answered here.
    if ((err as { status?: unknown }).status !== 400 || clientWentAway(err, ctx.req)) throw err;
    ctx.status = 400;
    ctx.type = 'application/json';
    ctx.body = {
      errors: [
        {
          message: 'The request body is not valid JSON: send {"query": "...", "variables": {...}}',
          extensions: { code: 'InvalidFormat' },
        },
      ],
    };
    return;
  }
  if (parsed) await next();
};
