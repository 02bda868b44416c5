// End-to-end support for the operators dashboard: the whole service on a real HTTPS port (webhook delivery on, a
// fast retry schedule), Debian chromium driven by playwright-core trusting only that service's certificate, a
// watch on every page for console errors and requests to other origins, and screenshots as test artifacts.

import { createHash, X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import tls from 'node:tls';
import type * as oc from 'openid-client';
import { pino } from 'pino';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { Agent, fetch, type RequestInit } from 'undici';
import { expect, inject } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openOrm } from '../../src/db/orm.js';
import { entities } from '../../src/modules.js';
import { type Service, startService } from '../../src/service.js';
import { type OAuthService, OPS } from '../oauth/support.js';
import { freePort } from '../support/port.js';
import { scoped } from '../support/scope.js';

export { OPS };
export const ARTIFACTS = resolve(import.meta.dirname, '../../test-artifacts');

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Empties every table, so the operator of OPS is the one bootstrap creates; the default car share stays. */
async function emptyDatabase(url: string): Promise<void> {
  const orm = await openOrm(url, entities as never, { pool: 1 });
  const conn = orm.em.fork().getConnection();
  const rows = await conn.execute<{ tablename: string }[]>(
    `select tablename from pg_tables where schemaname = 'public' and tablename not like 'mikro_orm_%'
       and tablename <> 'car_share'`,
  );
  if (rows.length) await conn.execute(`truncate ${rows.map((r) => `"${r.tablename}"`).join(', ')} cascade`);
  await conn.execute('delete from car_share where not is_default');
  await orm.close(true);
}

/** The hash chromium's --ignore-certificate-errors-spki-list takes for a certificate's public key. */
export const spkiHash = (pem: string): string =>
  createHash('sha256')
    .update(new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64');

/** Chromium trusting exactly the given certificates (their public keys), nothing more. */
export const launchChromium = (certs: string[]): Promise<Browser> =>
  chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [...CHROMIUM_FLAGS, `--ignore-certificate-errors-spki-list=${certs.map(spkiHash).join(',')}`],
  });

export interface Watch {
  consoleErrors: string[];
  foreignRequests: string[];
}

export interface E2E {
  /** The service, shaped as the OAuth tests' support expects, so their helpers (sign-up, tokens) work here. */
  s: OAuthService;
  service: Service;
  origin: string;
  browser: Browser;
  /** A fresh browser profile (no cookies) whose pages are watched. */
  newContext(): Promise<{ context: BrowserContext; page: Page; watch: Watch }>;
  close(): Promise<void>;
}

export async function startE2E(opts: { env?: Record<string, string> } = {}): Promise<E2E> {
  const url = inject('databaseUrl');
  await emptyDatabase(url);
  const port = await freePort();
  const origin = `https://localhost:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'carshare-e2e-'));
  const config = loadConfig({
    PORT: String(port),
    HTTP_PORT: '0',
    HOST: '127.0.0.1',
    PUBLIC_URL: origin,
    DATA_DIR: dataDir,
    DATABASE_URL: url,
    LOG_LEVEL: 'silent',
    OPS_EMAIL: OPS.username,
    OPS_PASSWORD: OPS.password,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    RATE_LIMIT_PER_MINUTE: '100000',
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
    RATE_LIMIT_AUTH_PER_MINUTE: '100000',
    ...opts.env,
  });
  const service = await startService({
    config,
    log: pino({ level: 'silent' }),
    timers: false,
    webhooks: { retryScheduleMs: [200, 200, 200], pollMs: 50, timeoutMs: 2000 },
  });
  const agent = new Agent({ connect: { ca: service.cert } });
  const doFetch = (pathOrUrl: string, init: RequestInit = {}) =>
    fetch(pathOrUrl.startsWith('https://') ? pathOrUrl : `${origin}${pathOrUrl}`, {
      ...init,
      dispatcher: agent,
    });
  const s: OAuthService = {
    service,
    origin,
    issuer: `${origin}/api/oauth`,
    agent,
    logs: [],
    fetch: doFetch,
    customFetch: (u, options) =>
      fetch(u, { ...(options as RequestInit), dispatcher: agent }) as unknown as ReturnType<oc.CustomFetch>,
    // In the default car share's scope, as the service's own statements run (its connections start as the app role).
    sql: (query, params = []) =>
      scoped(service.db.orm).transactional((em) =>
        em.getConnection().execute(query, params, 'all', em.getTransactionContext()),
      ) as never,
    close: async () => undefined,
  };
  // Chromium trusts exactly this service's self-signed certificate (its public key), nothing more.
  const browser = await launchChromium([service.cert]);
  mkdirSync(ARTIFACTS, { recursive: true });

  return {
    s,
    service,
    origin,
    browser,
    async newContext() {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const watch: Watch = { consoleErrors: [], foreignRequests: [] };
      context.on('request', (r) => {
        const u = new URL(r.url());
        if (u.protocol !== 'data:' && u.origin !== origin) watch.foreignRequests.push(r.url());
      });
      context.on('page', (p) => watchPage(p, watch));
      const page = await context.newPage();
      return { context, page, watch };
    },
    async close() {
      await browser.close();
      await service.stop();
      await agent.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function watchPage(page: Page, watch: Watch): void {
  page.on('console', (m) => {
    if (m.type() === 'error') watch.consoleErrors.push(`${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => watch.consoleErrors.push(`${page.url()}: ${e.message}`));
}

/** Every visible form control has a label (its own <label>, or aria-label / aria-labelledby). */
export async function unlabelledControls(page: Page): Promise<string[]> {
  // (A string: the tests are compiled without the DOM's types.)
  return page.evaluate<string[]>(`[...document.querySelectorAll('input, select, textarea')]
    .filter((c) => c.type !== 'hidden' && !c.closest('[hidden]'))
    .filter((c) => c.labels.length === 0 && !c.getAttribute('aria-label') && !c.getAttribute('aria-labelledby'))
    .map((c) => c.outerHTML)`);
}

/** A screenshot of the page as a test artifact, after checking it is labelled and loaded cleanly. */
export async function shoot(
  page: Page,
  name: string,
  watch: Watch,
  opts: { status?: number } = {},
): Promise<void> {
  await page.waitForLoadState('load');
  expect(await unlabelledControls(page), `unlabelled controls on ${name}`).toEqual([]);
  // A page answered with an error status (a refusal) is reported by chromium itself; nothing else may be.
  const expected = opts.status ? `the server responded with a status of ${opts.status}` : undefined;
  const errors = watch.consoleErrors.filter((m) => !(expected && m.includes(expected)));
  watch.consoleErrors.length = 0;
  expect(errors.join('\n'), `console errors by ${name}`).toBe('');
  expect(watch.foreignRequests.join('\n'), `requests to other origins by ${name}`).toBe('');
  // At 1280 px the header is one row: brand, navigation and who is signed in side by side.
  const wrapped = await page.evaluate<string[]>(`(() => {
    const header = document.querySelector('header');
    if (!header || window.innerWidth < 1280) return [];
    const first = header.children[0].getBoundingClientRect();
    return [...header.children]
      .filter((c) => c.getBoundingClientRect().top >= first.bottom)
      .map((c) => c.tagName + '.' + c.className);
  })()`);
  await page.screenshot({ path: join(ARTIFACTS, `dashboard-${name}.png`), fullPage: true });
  expect(wrapped, `header rows on ${name}`).toEqual([]);
}

/** Signs in on the authorization server's page the dashboard sends the browser to. */
export async function signIn(
  page: Page,
  origin: string,
  user: { username: string; password: string },
  path = '/dashboard',
) {
  await page.goto(`${origin}${path}`);
  await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/api\/oauth\/interaction\//);
  await page.getByLabel('E-mail address').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForLoadState('load');
}

/** Waits for the page whose main heading is `name` (navigation after a click or key press is not awaited). */
export async function heading(page: Page, name: string | RegExp): Promise<void> {
  await page
    .getByRole('heading', { level: 1, name, exact: typeof name === 'string' })
    .waitFor({ timeout: 10_000 });
}

/** The certificate the service presents to a TLS client naming `host`. */
export function servedTo(host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = tls.connect({ host: '127.0.0.1', port, servername: host, rejectUnauthorized: false }, () => {
      const raw = c.getPeerCertificate().raw;
      c.end();
      resolve(`-----BEGIN CERTIFICATE-----\n${raw.toString('base64')}\n-----END CERTIFICATE-----\n`);
    });
    c.on('error', reject);
  });
}
