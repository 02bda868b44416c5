// Static files (bundles, stylesheets) are marked so that the request log writes their lines at `debug`: a page
// load does not bury the API's requests at `info`.
import type Koa from 'koa';

export const markStaticAsset = (ctx: Koa.Context): void => {
  ctx.state.staticAsset = true;
};

export const isStaticAsset = (ctx: Koa.Context): boolean => ctx.state.staticAsset === true;
