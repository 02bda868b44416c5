// Help links (CONTRACT §27): every ResponseStatus answer carries `Meta.Help`, the absolute URL of the /docs section
// that explains its ErrorCode, and that section exists. Over the real listeners: the REST facade (JSON and XML), a
// 429, the Koa edge, the plain-HTTP refusal, Node's 431, and the metrics 401; OAuth error bodies stay OAuth's own.
import { connect } from 'node:net';
import { XMLParser } from 'fast-xml-parser';
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';

let s: TestService;
let limited: TestService;
let description = '';
beforeAll(async () => {
  s = await startTestService({ env: { METRICS_TOKEN: 'metrics-token-for-tests' } });
  limited = await startTestService({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1' } });
  const doc = (await (await s.fetch('/api/openapi.json')).json()) as { info: { description: string } };
  description = doc.info.description;
}, 60_000);
afterAll(async () => {
  await s?.close();
  await limited?.close();
});

/** The help link of an answer: under the service's public URL, at the anchor of its code's section of /docs. */
function expectHelp(origin: string, status: { ErrorCode: string; Meta?: Record<string, unknown> }) {
  const help = status.Meta?.Help;
  expect(typeof help, JSON.stringify(status)).toBe('string');
  const url = new URL(help as string);
  expect(`${url.origin}${url.pathname}`).toBe(`${origin}/docs`);
  const anchor = url.hash.slice(1);
  expect(anchor).toBe(`error-${status.ErrorCode}`);
  // The section exists in what /docs renders: the Errors guide's heading for the code, carrying that anchor.
  expect(description).toContain(`### ${status.ErrorCode}\n\n<a id="${anchor}"></a>`);
}

describe('Meta.Help', () => {
  it('is on a REST 404, in JSON and in XML', async () => {
    const r = await s.fetch('/api/nothing-here');
    expect(r.status).toBe(404);
    expectHelp(s.origin, ((await r.json()) as any).ResponseStatus);
    const x = await s.fetch('/api/nothing-here?format=xml');
    expect(x.status).toBe(404);
    expectHelp(s.origin, new XMLParser().parse(await x.text()).Response.ResponseStatus);
  });

  it('is on a 400 with field errors, next to the fields', async () => {
    const r = await s.fetch('/api/useraccounts', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Username: 'not an email' }),
    });
    expect(r.status).toBe(400);
    const status = ((await r.json()) as any).ResponseStatus;
    expect(status.Errors.length).toBeGreaterThan(0);
    expectHelp(s.origin, status);
  });

  it('is on a 429', async () => {
    await limited.fetch('/api/nothing-here');
    const r = await limited.fetch('/api/nothing-here');
    expect(r.status).toBe(429);
    const status = ((await r.json()) as any).ResponseStatus;
    expect(status.ErrorCode).toBe('TooManyRequests');
    expectHelp(limited.origin, status);
  });

  it('is on answers of the Koa edge: a path outside the API, and the metrics 401', async () => {
    const r = await s.fetch('/nothing-here');
    expect(r.status).toBe(404);
    expectHelp(s.origin, ((await r.json()) as any).ResponseStatus);
    const m = await s.fetch('/metrics', { headers: { authorization: 'Bearer wrong' } });
    expect(m.status).toBe(401);
    expect(m.headers.get('www-authenticate')).toBe('Bearer realm="carshare"');
    const status = ((await m.json()) as any).ResponseStatus;
    expect(status).toMatchObject({ ErrorCode: 'Unauthorized', Message: 'A metrics token is required' });
    expectHelp(s.origin, status);
  });

  it('is on the plain-HTTP 403 HttpsRequired', async () => {
    const r = await fetch(`http://127.0.0.1:${s.service.httpPort}/api/cars`);
    expect(r.status).toBe(403);
    const status = ((await r.json()) as any).ResponseStatus;
    expect(status.ErrorCode).toBe('HttpsRequired');
    expectHelp(s.origin, status);
  });

  it('is on the 431 Node answers for oversized headers', async () => {
    const answer = await new Promise<string>((done, fail) => {
      const socket = connect(s.service.httpPort, '127.0.0.1', () =>
        socket.write(`GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
      );
      let got = '';
      socket.on('data', (d) => {
        got += String(d);
      });
      socket.on('close', () => done(got));
      socket.on('error', fail);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    const status = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).ResponseStatus;
    expect(status.ErrorCode).toBe('RequestHeaderFieldsTooLarge');
    expectHelp(s.origin, status);
  });

  it('is not added to OAuth error bodies', async () => {
    const r = await s.fetch('/api/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=nobody&client_secret=nothing',
    });
    expect(r.status).toBe(401);
    const body = (await r.json()) as Record<string, unknown>;
    expect(body.error).toBe('invalid_client');
    expect(body).not.toHaveProperty('ResponseStatus');
    expect(JSON.stringify(body)).not.toContain('/docs#');
  });
});
