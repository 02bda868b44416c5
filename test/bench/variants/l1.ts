// L1, the data limit: node's own HTTPS server and `pg`, one prepared hand-written statement per read (the body
// comes out of PostgreSQL whole), and the smallest transaction for a write. No framework, no checks.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import pg from 'pg';
import { carSql, insertBookingSql, insertEventSql, searchCarsSql } from './l1.sql.js';

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.POOL ?? 10),
  // The car share its statements name (l1.sql.ts) and its inserts take as their car_share_id.
  options: `-c carshare.car_share_id=${process.env.CAR_SHARE_ID}`,
});
const etag = (body: string) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
const REF = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function json(res: ServerResponse, status: number, body: string, extra: Record<string, string> = {}) {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...extra,
  });
  res.end(body);
}

const read = (res: ServerResponse, body: string | undefined) =>
  body === undefined
    ? json(res, 404, '{"ResponseStatus":{"ErrorCode":"NotFound"}}')
    : json(res, 200, body, {
        etag: etag(body),
        'cache-control': 'private, max-age=10',
        vary: 'Accept, Authorization',
      });

async function book(carId: string, raw: string): Promise<string> {
  const input = JSON.parse(raw) as { StartDateUtc: string; EndDateUtc: string; Message?: string };
  const client = await pool.connect();
  try {
    await client.query('begin');
    const reference = [...randomBytes(8)].map((b) => REF[b % 32]).join('');
    const r = await client.query({
      name: 'book',
      text: insertBookingSql,
      values: [
        randomUUID(),
        carId,
        process.env.BORROWER_ID,
        input.StartDateUtc,
        input.EndDateUtc,
        input.Message ?? null,
        reference,
      ],
    });
    const b = r.rows[0];
    await client.query({
      name: 'event',
      text: insertEventSql,
      values: [
        randomUUID(),
        JSON.stringify({ Name: 'carbooking_approve', Reference: b.reference, CarId: b.car_id }),
        JSON.stringify([b.borrower_id, b.owner_id]),
      ],
    });
    await client.query('commit');
    return b.body as string;
  } catch (e) {
    await client.query('rollback');
    throw e;
  } finally {
    client.release();
  }
}

const server = createServer(
  { key: readFileSync(process.env.TLS_KEY!), cert: readFileSync(process.env.TLS_CERT!) },
  (req, res) => {
    const url = new URL(req.url ?? '/', 'https://localhost');
    const parts = url.pathname.split('/').filter(Boolean);
    const run = async () => {
      if (req.method === 'GET' && url.pathname === '/api/cars') {
        const limit = Number(url.searchParams.get('limit') ?? 100);
        const offset = Number(url.searchParams.get('offset') ?? 0);
        const r = await pool.query({ name: 's1', text: searchCarsSql, values: [limit, offset] });
        return read(res, r.rows[0]?.body);
      }
      if (req.method === 'GET' && parts.length === 3 && parts[1] === 'cars') {
        const r = await pool.query({ name: 's2', text: carSql, values: [parts[2]] });
        return read(res, r.rows[0]?.body);
      }
      if (req.method === 'POST' && parts.length === 4 && parts[3] === 'bookings') {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        return json(res, 201, await book(parts[2]!, Buffer.concat(chunks).toString('utf8')));
      }
      json(res, 404, '{"ResponseStatus":{"ErrorCode":"NotFound"}}');
    };
    run().catch((e) => json(res, 500, JSON.stringify({ ResponseStatus: { Message: String(e) } })));
  },
);
server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', port: (server.address() as { port: number }).port });
});
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.end().finally(() => process.exit(0));
});
