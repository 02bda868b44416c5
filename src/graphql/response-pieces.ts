// The answer of a large query over HTTP, held as JSON text root field by root field (CONTRACT §13 "Memory"):
// 50,000 cars are ~60 MB as objects and ~14 MB as text. Each root field's value is serialised as soon as it is
// resolved and stands in the result as a marker; after Apollo has written the body, the body is sent as a stream
// of its parts, each held text in turn where its marker was: the whole answer is never copied into one string (and
// then into one Buffer for the socket), and each text is let go once written. A NUL can be in no value (inputs
// holding one are refused, PostgreSQL stores none), so no answer can contain a marker by accident.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
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

/** The body's parts in order: its own text between markers, and the held text (or, gone, the marker) for each. */
function partsOf(body: string): string[] {
  const parts: string[] = [];
  let at = 0;
  for (const m of body.matchAll(MARKER)) {
    parts.push(body.slice(at, m.index));
    const text = held.get(m[1]!);
    held.delete(m[1]!);
    parts.push(text ?? m[0]);
    at = m.index + m[0].length;
  }
  parts.push(body.slice(at));
  return parts;
}

/** Koa, around Apollo on /graphql: sends the body with each held text where its marker is. */
export const spliceHeldText: Koa.Middleware = async (ctx, next) => {
  await next();
  if (typeof ctx.body !== 'string' || !ctx.body.includes('\\u0000piece:')) return;
  const parts = partsOf(ctx.body);
  const length = parts.reduce((n, p) => n + Buffer.byteLength(p), 0);
  // Each part is dropped from the array as it is handed to the socket (which pulls as it drains).
  ctx.body = Readable.from(
    (function* () {
      for (let i = 0; i < parts.length; i += 1) {
        const part = parts[i]!;
        parts[i] = '';
        if (part.length > 0) yield Buffer.from(part);
      }
    })(),
    { objectMode: false },
  );
  ctx.length = length;
};
