// GraphiQL for `GET /graphql` from a browser (Accept: text/html): GraphQL Yoga's bundle of GraphiQL, its styles
// and editor workers, all served by the service itself, so the page works offline and under a strict policy.
import type Koa from 'koa';
import { type Asset, lazyFile, packageFile, serveAsset } from './asset.js';

const BASE = '/graphiql/assets';

export const GRAPHIQL_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'; " +
  "base-uri 'none'; form-action 'self'; object-src 'none'";

const PAGE =
  '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" ' +
  'content="width=device-width,initial-scale=1"><title>Carshare GraphQL</title>' +
  `<link rel="stylesheet" href="${BASE}/graphiql.css"><link rel="icon" href="data:,">` +
  '<style>html,body,#graphiql{height:100%;margin:0}</style></head><body>' +
  '<noscript>GraphiQL needs JavaScript. POST GraphQL requests to this URL.</noscript><div id="graphiql"></div>' +
  `<script src="${BASE}/yoga-graphiql.js"></script><script src="${BASE}/init.js"></script></body></html>`;

/** What a first visit shows: a query of this API, and where the token goes. */
export const EXAMPLE_QUERY = `# Carshare's GraphQL API. Ctrl-Enter runs the query; Ctrl-Space suggests fields.
# Most queries need a token: put it in Headers below (how to get one: /docs, Authentication).
query FirstCars {
  cars(limit: 5, sort: "make") {
    total
    nodes {
      id
      make
      model
      seats
      hourlyRate {
        amount
        currency
      }
    }
  }
}
`;

export const HEADERS_TEMPLATE = `{
  // A token from the token endpoint (/api/oauth/token), e.g. a client application's:
  // "Authorization": "Bearer ACCESS_TOKEN"
}
`;

const WORKERS = {
  graphql: 'graphql.worker..bundle.js',
  json: 'json.worker.bundle.js',
  editorWorkerService: 'editor.worker.bundle.js',
} as const;

// The editor's language workers come from this origin too (the bundle otherwise has no way to find them).
const INIT = `globalThis.MonacoEnvironment = {
  getWorker(_id, label) {
    const files = ${JSON.stringify(WORKERS)};
    return new Worker('${BASE}/workers/' + (files[label] || files.editorWorkerService));
  },
};
YogaGraphiQL.renderYogaGraphiQL(document.getElementById('graphiql'), {
  endpoint: '/graphql',
  title: 'Carshare GraphQL',
  query: ${JSON.stringify(EXAMPLE_QUERY)},
  headers: ${JSON.stringify(HEADERS_TEMPLATE)},
});
`;

/** Whether a GET to /graphql comes from a browser navigating to it rather than from a GraphQL client. */
const wantsPage = (ctx: Koa.Context) =>
  ctx.path === '/graphql' &&
  ctx.method === 'GET' &&
  ctx.query.query === undefined &&
  ctx.accepts('application/graphql-response+json', 'application/json', 'text/html') === 'text/html';

export function graphiql(): Koa.Middleware {
  const js = 'text/javascript; charset=utf-8';
  const dist = (f: string) => packageFile('@graphql-yoga/graphiql', f);
  const files: Record<string, () => Asset> = {
    [`${BASE}/yoga-graphiql.js`]: lazyFile(dist('yoga-graphiql.umd.js'), js),
    [`${BASE}/graphiql.css`]: lazyFile(dist('graphiql.css'), 'text/css; charset=utf-8'),
    ...Object.fromEntries(
      Object.values(WORKERS).map((f) => [
        `${BASE}/workers/${f}`,
        lazyFile(dist(`monacoeditorwork/${f}`), js),
      ]),
    ),
  };
  const init: Asset = { type: js, body: INIT };
  files[`${BASE}/init.js`] = () => init;
  const page: Asset = { type: 'text/html; charset=utf-8', body: PAGE };
  return async (ctx, next) => {
    if (wantsPage(ctx)) {
      ctx.set('Content-Security-Policy', GRAPHIQL_CSP);
      ctx.vary('Accept');
      return serveAsset(ctx, page, 300);
    }
    const file = ctx.method === 'GET' || ctx.method === 'HEAD' ? files[ctx.path] : undefined;
    if (!file) return next();
    serveAsset(ctx, file());
  };
}
