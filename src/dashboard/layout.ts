// The frame of every dashboard page: navigation, who is signed in, the notice or problem of the last action, and
// the security headers (a strict CSP: only this origin's stylesheet and script, no inline code, no framing).
import type Koa from 'koa';
import type { Problem } from './errors.js';
import { type Frame, frameOf } from './frame.js';
import { type Html, html } from './html.js';

export const BASE = '/dashboard';

export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const sections = [
  { key: 'summary', path: BASE, label: 'Summary' },
  { key: 'clients', path: `${BASE}/clients`, label: 'Client applications' },
  { key: 'webhooks', path: `${BASE}/webhooks`, label: 'Webhooks' },
  { key: 'verifications', path: `${BASE}/verifications`, label: 'Verifications' },
  { key: 'users', path: `${BASE}/users`, label: 'Users' },
  { key: 'cars', path: `${BASE}/cars`, label: 'Cars' },
  { key: 'bookings', path: `${BASE}/bookings`, label: 'Bookings' },
  { key: 'audit', path: `${BASE}/audit`, label: 'Audit trail' },
] as const;
export type Section = (typeof sections)[number]['key'];

/** The operators dashboard of each car share. */
export const DASHBOARD: Frame = {
  base: BASE,
  name: 'dashboard',
  brand: 'Carshare operators',
  navLabel: 'Dashboard',
  sections,
  scope: 'ops',
  role: 'ops',
  cookie: 'carshare-dashboard',
  denied: {
    title: 'This dashboard is for operators',
    text: (who) => html`<p>You signed in${who}, but the account does not have
the operator role, so the dashboard cannot be used with it. Ask an operator if you need access.</p>`,
  },
};

/** What a redirect after an action may announce (`?notice=`): a closed list, so nothing is echoed from the URL. */
export const notices = {
  'client-suspended':
    'The client application is suspended: its tokens were revoked and it cannot get new ones.',
  'client-reactivated': 'The client application is active again.',
  'client-deleted': 'The client application was deleted, with every token and consent it held.',
  'webhook-paused': 'The subscription is paused: nothing is delivered until you resume it.',
  'webhook-resumed': 'The subscription is active again.',
  'webhook-deleted': 'The subscription was deleted; its pending deliveries were cancelled.',
  'webhook-tested': 'A webhook_test event is on its way; its delivery appears below.',
  'webhook-redelivered': 'The delivery was sent again; the new attempt is listed below.',
  'verification-verified': 'The verification is Verified.',
  'verification-rejected': 'The verification is Rejected; the subject can submit new evidence.',
  'user-suspended': 'The account is suspended: its tokens stopped working at once.',
  'user-reactivated': 'The account is active again.',
  'car-listed': 'The car is listed: people can find it and book it once it is verified.',
  'car-unlisted': 'The car is unlisted: nobody can find or book it until it is listed again.',
  'booking-cancelled': 'The booking is cancelled; the borrower and the owner can read the reason.',
} as const;
export type Notice = keyof typeof notices;

export const noticeOf = (v: unknown): string | undefined =>
  typeof v === 'string' && Object.hasOwn(notices, v) ? notices[v as Notice] : undefined;

export interface PageSpec {
  title: string;
  body: Html;
  /** The key of a section of the frame's navigation. */
  section?: string;
  notice?: string | undefined;
  problem?: Problem | undefined;
  /** The signed-in operator; absent on the sign-in pages. */
  user?: { username: string; csrf: string };
}

export function problemBox(p: Problem | undefined): Html {
  if (!p) return html``;
  const items = p.fields.map((f) => html`<li><a href="#f-${f.field}">${f.message}</a></li>`);
  return html`<div class="problem" role="alert" id="problem" tabindex="-1"><p>${p.summary}</p>${
    items.length ? html`<ul>${items}</ul>` : ''
  }</div>`;
}

function nav(frame: Frame, current: string | undefined, user: PageSpec['user']): Html {
  if (!user) return html``;
  const links = frame.sections.map(
    (s) =>
      html`<li><a href="${s.path}"${s.key === current ? html` aria-current="page"` : ''}>${s.label}</a></li>`,
  );
  return html`<nav aria-label="${frame.navLabel}"><ul>${links}</ul></nav>
<form class="signout" method="post" action="${frame.base}/signout"><input type="hidden" name="csrf" value="${user.csrf}">
<span class="who" title="Signed in as ${user.username}"><span class="visually-hidden">Signed in as </span><strong>${user.username}</strong></span> <button type="submit" class="secondary">Sign out</button></form>`;
}

export function layout(p: PageSpec, frame: Frame = DASHBOARD): string {
  const base = frame.base;
  return `<!doctype html>${
    html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${p.title} · ${frame.brand}</title>
<link rel="icon" href="${base}/assets/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="${base}/assets/dashboard.css"><script type="module" src="${base}/assets/dashboard.js"></script></head>
<body><a class="skip" href="#main">Skip to the content</a>
<header><p class="brand"><a href="${base}">${frame.brand}</a></p>${nav(frame, p.section, p.user)}</header>
<main id="main" tabindex="-1"><h1>${p.title}</h1>
${p.notice ? html`<p class="notice" role="status">${p.notice}</p>` : ''}${problemBox(p.problem)}
${p.body}</main></body></html>`.value
  }`;
}

/** The frame of the request: the one its middleware set, the dashboard's otherwise. */
export const frame = (ctx: Koa.Context): Frame => frameOf(ctx.state) ?? DASHBOARD;

/** Security headers of every dashboard response: pages hold personal data and secrets, so nothing is cached. */
export function secure(ctx: Koa.Context): void {
  ctx.set('Content-Security-Policy', CSP);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('Cache-Control', 'no-store');
}

export function send(ctx: Koa.Context, p: PageSpec, status = 200): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = layout(p, frame(ctx));
}
