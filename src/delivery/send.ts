// One HTTP attempt of a delivery (CONTRACT §8): the headers, the Standard Webhooks signature over the exact
// bytes sent, a hard deadline over the whole exchange, no redirects, and at most 64 KiB of the answer kept.
import { createHmac, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import { type Dispatcher, request } from 'undici';

export const RESPONSE_BODY_LIMIT = 64 * 1024;

export interface AttemptRequest {
  url: string;
  deliveryId: string;
  /** Sent as X-Webhook-Subscription-Id: a receiver with several subscriptions knows which secret signed. */
  subscriptionId: string;
  event: string;
  body: string;
  /** `whsec_` secrets to sign with, newest first: two during a rotation. */
  secrets: readonly string[];
  timestamp: Date;
  userAgent: string;
}

interface Common {
  requestId: string;
  durationMs: number;
}
export type AttemptResult =
  | (Common & { kind: 'response'; statusCode: number; retryAfter: string | null; body: string | null })
  | (Common & { kind: 'error'; error: string; blocked: boolean });

/** The hierarchical Request-Id of the contract's sample (`|<trace>.<span>.`), new for every attempt. */
const newRequestId = (): string => `|${randomBytes(16).toString('hex')}.${randomBytes(8).toString('hex')}.`;

/**
 * Signing keys by secret, decoded and made KeyObjects once: decoding, and the KeyObject createHmac would build
 * from a Buffer on every call (~25 µs), are most of the cost of a signature over a small body.
 */
const keys = new Map<string, KeyObject>();
function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    key = createSecretKey(Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64'));
    if (keys.size >= 10_000) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

/** Standard Webhooks `v1` signatures (HMAC-SHA256 of `id.timestamp.body`), one per secret, space-separated. */
export function signatureHeader(req: Pick<AttemptRequest, 'deliveryId' | 'timestamp' | 'body' | 'secrets'>) {
  const signed = `${req.deliveryId}.${Math.floor(req.timestamp.getTime() / 1000)}.${req.body}`;
  return req.secrets
    .map((s) => `v1,${createHmac('sha256', keyOf(s)).update(signed, 'utf8').digest('base64')}`)
    .join(' ');
}

export function attemptHeaders(req: AttemptRequest, requestId: string): Record<string, string> {
  return {
    accept: 'application/json',
    'content-type': 'application/json',
    'accept-encoding': 'gzip,deflate',
    'user-agent': req.userAgent,
    'x-webhook-delivery': req.deliveryId,
    'x-webhook-event': req.event,
    'x-webhook-subscription-id': req.subscriptionId,
    'request-id': requestId,
    'content-length': String(Buffer.byteLength(req.body)),
    'webhook-id': req.deliveryId,
    'webhook-timestamp': String(Math.floor(req.timestamp.getTime() / 1000)),
    'webhook-signature': signatureHeader(req),
  };
}

async function readBody(body: Readable, encoding: string | undefined): Promise<string> {
  const enc = encoding?.trim().toLowerCase();
  const source =
    enc === 'gzip' || enc === 'x-gzip'
      ? body.pipe(createGunzip())
      : enc === 'deflate'
        ? body.pipe(createInflate())
        : body;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of source) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= RESPONSE_BODY_LIMIT) break;
    }
  } catch {
    // A body cut by the deadline or badly compressed: keep what arrived.
  } finally {
    body.destroy();
    if (source !== body) source.destroy();
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8');
}

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

export async function sendAttempt(
  dispatcher: Dispatcher,
  req: AttemptRequest,
  opts: { timeoutMs: number; allowPrivate: boolean },
): Promise<AttemptResult> {
  const requestId = newRequestId();
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (!opts.allowPrivate && !req.url.startsWith('https:'))
    return { kind: 'error', requestId, durationMs: 0, blocked: true, error: 'Blocked: the URL is not https' };
  const abort = new AbortController();
  const deadline = setTimeout(() => abort.abort(new Error('deadline')), opts.timeoutMs);
  try {
    const res = await request(req.url, {
      method: 'POST',
      dispatcher,
      headers: attemptHeaders(req, requestId),
      body: req.body,
      signal: abort.signal,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
    });
    const body = await readBody(res.body, one(res.headers['content-encoding']));
    const retryAfter = one(res.headers['retry-after']) ?? null;
    return {
      kind: 'response',
      requestId,
      durationMs: elapsed(),
      statusCode: res.statusCode,
      retryAfter,
      body,
    };
  } catch (e) {
    const err = e as { code?: string; message?: string };
    if (err.code === 'ERR_TARGET_BLOCKED')
      return {
        kind: 'error',
        requestId,
        durationMs: elapsed(),
        blocked: true,
        error: `Blocked: ${err.message}`,
      };
    const error = abort.signal.aborted
      ? `Timeout: no complete response within ${opts.timeoutMs} ms`
      : `${err.code ?? 'Error'}: ${err.message ?? String(e)}`;
    return { kind: 'error', requestId, durationMs: elapsed(), blocked: false, error };
  } finally {
    clearTimeout(deadline);
  }
}
