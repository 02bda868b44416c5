// The summary page (the dashboard's home): the report of CONTRACT §7 for today, this week and this month (UTC).
import type Router from '@koa/router';
import { describeError } from './errors.js';
import { html } from './html.js';
import type { Kit } from './kit.js';
import { type Periods, summaryPage } from './summary.pages.js';

const FIELDS = `fromUtc toUtc bookingsInRange { created used completed }
  bookingsByState { pending approved declined expired cancelled inUse returned completed }
  users { active unverified } cars { listed unverified }`;
const SUMMARY = `query($day: DateTime!, $week: DateTime!, $month: DateTime!, $now: DateTime!) {
  today: summary(fromUtc: $day, toUtc: $now) { ${FIELDS} }
  week: summary(fromUtc: $week, toUtc: $now) { ${FIELDS} }
  month: summary(fromUtc: $month, toUtc: $now) { ${FIELDS} } }`;

const DAY_MS = 86_400_000;

/** Midnight UTC today, the Monday of this ISO week and the first of this month. */
export function periodStarts(now: Date): { day: Date; week: Date; month: Date } {
  const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const week = new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY_MS);
  const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  return { day, week, month };
}

export function serveSummaryPages(router: Router, kit: Kit): void {
  router.get(
    '/',
    kit.operator(async (_ctx, op) => {
      // One millisecond past now, so a range starting exactly now is never empty.
      const now = new Date(kit.clock.now().getTime() + 1);
      const s = periodStarts(now);
      const r = await op.api.run<Periods>(SUMMARY, {
        day: s.day.toISOString(),
        week: s.week.toISOString(),
        month: s.month.toISOString(),
        now: now.toISOString(),
      });
      if (!r.ok)
        return op.page({
          title: 'Summary',
          section: 'summary',
          body: html``,
          problem: describeError(r.error),
        });
      op.page({ title: 'Summary', section: 'summary', body: summaryPage(r.data) });
    }),
  );
}
