// One car share: what it holds (a chart and the counts), its name and limits, and the platform's actions on it —
// suspend with a reason, reactivate, add an operator, delete after typing its host.
import { barChart } from '../dashboard/chart.js';
import type { Problem } from '../dashboard/errors.js';
import { csrfField, fieldError } from '../dashboard/forms.js';
import { type Html, href, html, when } from '../dashboard/html.js';
import type { CarShare, Limits } from './api.js';
import { carSharePath, field } from './car-shares.pages.js';

const limitFields: { key: keyof Limits; label: string }[] = [
  { key: 'callerPerMinute', label: 'Per caller' },
  { key: 'anonymousPerMinute', label: 'Per anonymous address' },
  { key: 'authPerMinute', label: 'Sign-in attempts' },
  { key: 'carSharePerMinute', label: 'Whole car share' },
];
export const limitKeys = limitFields.map((l) => l.key);

function usage(c: CarShare): Html {
  const u = c.usage;
  const chart = barChart('usage', 'What it holds', [
    { label: 'User accounts', value: u.userAccounts },
    { label: 'Cars', value: u.cars },
    { label: 'Bookings', value: u.bookings },
  ]);
  const row = (label: string, value: number) =>
    html`<tr><th scope="row">${label}</th><td class="num">${value}</td></tr>`;
  return html`<section aria-labelledby="h-usage"><h2 id="h-usage">Usage</h2>${chart}
<table><caption class="visually-hidden">Usage counts</caption><tbody>${row('User accounts', u.userAccounts)}${row('Operators', u.operators)}
${row('Cars', u.cars)}${row('Listed cars', u.listedCars)}${row('Bookings', u.bookings)}${row('Bookings in the last 30 days', u.bookingsLast30Days)}
${row('Client applications', u.clientApplications)}${row('Webhook subscriptions', u.webhookSubscriptions)}</tbody></table>
<p class="hint">Counted ${when(u.countedDateUtc)} (at most 5 minutes old).</p></section>`;
}

function settings(c: CarShare, csrf: string, problem?: Problem): Html {
  const limit = (l: (typeof limitFields)[number]) => {
    const v = c.limits[l.key];
    return field(`limits-${l.key}`, l.label, v === null ? '' : String(v), problem, {
      type: 'number',
      hint: 'requests per minute; empty: the deployment’s setting',
    });
  };
  return html`<section aria-labelledby="h-settings"><h2 id="h-settings">Name and limits</h2>
<form class="stack" method="post" action="${carSharePath(c.id)}">${csrfField(csrf)}
${field('name', 'Name', c.name, problem, { required: true })}
<fieldset><legend>Rate limits</legend>${limitFields.map(limit)}</fieldset>
<p><button type="submit">Save</button></p></form></section>`;
}

function state(c: CarShare, csrf: string, problem?: Problem): Html {
  if (c.isDefault)
    return html`<p>This is the default car share, at the platform’s own address: it can be neither suspended nor deleted.</p>`;
  if (c.status === 'Suspended')
    return html`<p>Suspended ${when(c.suspendedDateUtc)}${c.suspendedReason ? html`: <q>${c.suspendedReason}</q>` : ''}.</p>
<form class="inline" method="post" action="${carSharePath(c.id)}/reactivate">${csrfField(csrf)}<button type="submit">Reactivate</button></form>`;
  const err = fieldError(problem, 'reason');
  return html`<form class="stack" method="post" action="${carSharePath(c.id)}/suspend">${csrfField(csrf)}
<p><label for="f-reason">Reason</label> <span class="hint">read by the platform’s people; at most 1000 characters</span>
${err.message}<textarea id="f-reason" name="reason" rows="2" cols="60" maxlength="1000"${err.attrs}></textarea></p>
<p><button type="submit" class="danger">Suspend</button> <span class="hint">Every request to its host is refused until it is reactivated; nothing is deleted.</span></p></form>`;
}

function addOperator(c: CarShare, csrf: string, problem?: Problem): Html {
  return html`<section aria-labelledby="h-operator"><h2 id="h-operator">Add an operator</h2>
<p>A new account with roles <code>user</code> and <code>ops</code> in this car share: the way back in when its operators are locked out.</p>
<form class="stack" method="post" action="${carSharePath(c.id)}/operators">${csrfField(csrf)}
${field('username', 'E-mail address', '', problem, { type: 'email', required: true })}
${field('password', 'Password', '', problem, { type: 'password', hint: 'optional: leave empty to have one generated, shown once', autocomplete: 'new-password' })}
<p><button type="submit">Add the operator</button></p></form></section>`;
}

function deletion(c: CarShare, csrf: string, problem?: Problem): Html {
  if (c.isDefault) return html``;
  const err = fieldError(problem, 'confirm');
  return html`<section aria-labelledby="h-delete"><h2 id="h-delete">Delete</h2>
<p>Only a suspended car share can be deleted. Every row of it is removed within a minute, and cannot be brought back.</p>
<form class="stack" method="post" action="${carSharePath(c.id)}/delete">${csrfField(csrf)}
<p><label for="f-confirm">Type its host, <code>${c.host}</code>, to confirm</label>
${err.message}<input id="f-confirm" name="confirm" autocomplete="off" size="40"${err.attrs}></p>
<p><button type="submit" class="danger">Delete the car share</button></p></form></section>`;
}

export function carSharePage(c: CarShare, csrf: string, problem?: Problem, extra: Html = html``): Html {
  return html`${extra}<dl class="facts"><dt>Host</dt><dd><code>${c.host}</code></dd><dt>BaseUrl</dt><dd><code>${c.baseUrl}</code></dd>
<dt>Issuer</dt><dd><code>${c.issuer}</code></dd><dt>Status</dt><dd><span class="status status-${c.status.toLowerCase()}">${c.status}</span></dd>
<dt>Created</dt><dd>${when(c.createdDateUtc)}</dd></dl>
<section aria-labelledby="h-state"><h2 id="h-state">Suspension</h2>${state(c, csrf, problem)}</section>
${usage(c)}${settings(c, csrf, problem)}${addOperator(c, csrf, problem)}${deletion(c, csrf, problem)}
<p><a href="${href('/platform/audit', { carShareId: c.id })}">Platform audit of this car share</a></p>`;
}
