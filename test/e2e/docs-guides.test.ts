// The guides of /docs (CONTRACT §15, §27): Your first booking, Webhooks and Errors in the document /docs renders,
// every error code of the table and every event in them, and a help link (`/docs#error-<Code>`) landing on its
// section in a real browser, from this origin only.
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventNames } from '../../src/events/events.js';
import { statusOf } from '../../src/shared/errors.js';
import { type E2E, startE2E } from './dashboard.support.js';

let e: E2E;
let description = '';
beforeAll(async () => {
  e = await startE2E();
  const doc = (await (await e.s.fetch('/api/openapi.json')).json()) as { info: { description: string } };
  description = doc.info.description;
}, 60_000);
afterAll(async () => e?.close());

const headings = () => [...description.matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1]!.trim());

describe('the guides in /docs', () => {
  it('has Getting started, Authentication, Your first booking, Webhooks and Errors', () => {
    for (const h of ['Getting started', 'Authentication', 'Your first booking', 'Webhooks', 'Errors'])
      expect(description).toMatch(new RegExp(`^## ${h}$`, 'm'));
  });

  it('explains every code of the error table under its own anchor, with its status', () => {
    const errors = description.slice(description.indexOf('\n## Errors\n'));
    const all = headings().map((h) => h.toLowerCase());
    for (const [code, status] of Object.entries(statusOf)) {
      expect(errors).toContain(`### ${code}\n\n<a id="error-${code}"></a>**${status}.** `);
      // A heading of its own: the reference addresses headings by their lower-cased text.
      expect(
        all.filter((h) => h === code.toLowerCase()),
        code,
      ).toHaveLength(1);
    }
  });

  it('lists every event, the headers, verification with standardwebhooks, retries, the delivery log and listen', () => {
    const hooks = description.slice(
      description.indexOf('\n## Webhooks\n'),
      description.indexOf('\n## Errors\n'),
    );
    for (const name of eventNames) expect(hooks).toContain(`| \`${name}\` |`);
    for (const text of [
      'webhook-signature',
      'X-Webhook-Event',
      "from 'standardwebhooks'",
      'wh.verify(rawBody, headers)',
      '5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h',
      '/redeliver',
      'npm run webhooks -- listen --forward-to',
    ])
      expect(hooks).toContain(text);
  });

  it('walks from a new car to an approved booking, naming the seed-demo shortcut', () => {
    const first = description.slice(
      description.indexOf('\n## Your first booking\n'),
      description.indexOf('\n## Webhooks\n'),
    );
    for (const text of [
      'npm run admin -- seed-demo',
      '/api/cars',
      '/submit',
      '/verify',
      '/list',
      '/bookings',
      '/approve',
    ])
      expect(first).toContain(text);
  });

  it('lands a help link on its section, on load and from a page already open, fetching nothing elsewhere', async () => {
    const { context, page, watch } = await e.newContext();
    try {
      await page.goto(`${e.origin}/docs#error-TooManyRequests`, {
        waitUntil: 'domcontentloaded',
        timeout: 60_000,
      });
      const heading = page.getByRole('heading', { name: 'TooManyRequests', exact: true });
      await heading.waitFor({ timeout: 60_000 });
      await expect.poll(() => heading.isVisible(), { timeout: 10_000 }).toBe(true);
      await expect.poll(() => inViewport(heading), { timeout: 10_000 }).toBe(true);
      await page.evaluate("location.hash = '#error-NotFound'");
      const notFound = page.getByRole('heading', { name: 'NotFound', exact: true });
      await expect.poll(() => inViewport(notFound), { timeout: 10_000 }).toBe(true);
      expect(watch.consoleErrors).toEqual([]);
      expect(watch.foreignRequests).toEqual([]);
    } finally {
      await context.close();
    }
  }, 150_000);
});

/** Whether the element's top is within the window (scrolled to), not merely rendered somewhere on the page. */
const inViewport = async (l: Locator): Promise<boolean> => {
  const box = await l.boundingBox();
  const height = l.page().viewportSize()?.height ?? 0;
  return box !== null && box.y >= 0 && box.y < height;
};
