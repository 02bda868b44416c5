// Large answers (a REST page of 100 cars with every embed is ~200 KB, encoded once: rest-facade/cache.ts; /graphql's
// text the same) written in slices with the socket's backpressure instead of one write: one write of the whole text
// makes Node copy it into one buffer and encrypt all of it at once, and both stay in malloc'd memory until the client has read it, ~400 KB per slow
// connection. In slices, a connection holds a slice or two outside V8's heap while the text itself is read (bench,
// 1,000 cars, one process: S1 / S4 peak 269 / 271 MB against 273–284 / 281–289, CPU per page unchanged).
import type Koa from 'koa';

const LARGE = 64 * 1024;
const SLICE = 16 * 1024;

export const sliceLargeBodies: Koa.Middleware = async (ctx, next) => {
  await next();
  const body = ctx.body;
  if (ctx.method === 'HEAD' || !ctx.writable) return;
  // An encoded body (the REST facade's, rest-facade/cache.ts) in slices that share its memory: nothing is copied.
  if (Buffer.isBuffer(body) && body.length >= LARGE)
    writeSlices(ctx, body.length, (at) => body.subarray(at, Math.min(at + SLICE, body.length)));
  else if (typeof body === 'string' && body.length >= LARGE)
    writeSlices(ctx, body.length, (at) => {
      let end = Math.min(at + SLICE, body.length);
      // Never between the two halves of a surrogate pair.
      const last = body.charCodeAt(end - 1);
      if (end < body.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
      return body.slice(at, end);
    });
};

/**
 * Writes a body of `length` (bytes or UTF-16 units) as the slices `sliceAt` gives from each position, as the socket
 * takes them. Koa has set the status and every header (Content-Length from the body) on the response already.
 */
function writeSlices(ctx: Koa.Context, length: number, sliceAt: (at: number) => Buffer | string): void {
  ctx.respond = false;
  const res = ctx.res;
  let at = 0;
  const write = () => {
    while (at < length) {
      const slice = sliceAt(at);
      at += slice.length;
      if (!res.write(slice)) {
        res.once('drain', write);
        return;
      }
    }
    res.end();
  };
  write();
}
