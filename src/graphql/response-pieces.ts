// The answer of a large query over HTTP, held as JSON text root field by root field (CONTRACT §13 "Memory"):
// 50,000 cars are ~60 MB as objects and ~14 MB as text. Each root field's value is serialised as soon as it is
// resolved and stands in the result as a marker; after Apollo has written the body, the markers are replaced by
// the text. A NUL can be in no value (inputs holding one are refused, PostgreSQL stores none), so no answer can
// contain a marker by accident.
import { randomUUID } from 'node:crypto';
import type Koa from 'koa';

const held = new Map<string, string>();
/** Markers never spliced (a failed response) are dropped after this long. */
const HOLD_MS = 120_000;
const MARKER = /"\\u0000piece:([0-9a-f-]{36})\\u0000"/g;

/** Keeps a value's JSON text and returns the marker standing for it in the result. */
export function holdAsText(value: unknown): string {
  const id = randomUUID();
  held.set(id, JSON.stringify(value) ?? 'null');
  setTimeout(() => held.delete(id), HOLD_MS).unref();
  return `\u0000piece:${id}\u0000`;
}

/** Koa, around Apollo on /graphql: puts each held text where its marker is in the body. */
export const spliceHeldText: Koa.Middleware = async (ctx, next) => {
  await next();
  if (typeof ctx.body !== 'string' || !ctx.body.includes('\\u0000piece:')) return;
  ctx.body = ctx.body.replace(MARKER, (marker, id: string) => {
    const text = held.get(id);
    held.delete(id);
    return text ?? marker;
  });
};
