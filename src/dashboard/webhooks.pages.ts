// The webhook pages: subscriptions, the subscribe form, one subscription with its deliveries and attempts, the
// secrets shown once, and the delete confirmation.

import { type EventName, eventNames } from '../events/events.js';
import { auditLink } from './audit.pages.js';
import type { Problem } from './errors.js';
import { actionButton, type Choice, checkboxes, csrfField, fieldError, pager, secretField } from './forms.js';
import { type Html, html, when } from './html.js';
import { BASE } from './layout.js';

export interface Sub {
  id: string;
  name: string;
  event: string;
  config: { url: string };
  isActive: boolean;
  disabledReason: 'Manual' | 'Failing' | 'Gone' | null;
  consecutiveFailures: number;
  lastSuccessDateUtc: string | null;
  lastFailureDateUtc: string | null;
  createdDateUtc: string;
}

export interface Delivery {
  id: string;
  event: string;
  status: string;
  nextAttemptDateUtc: string | null;
  createdDateUtc: string;
  payload: unknown;
  attempts: {
    attemptedDateUtc: string;
    statusCode: number | null;
    error: string | null;
    durationMs: number;
    trigger: string;
  }[];
}

export interface WebhookDraft {
  name: string;
  url: string;
  events: string[];
  secret: string;
}

const eventHints = {
  useraccount_create: 'A person signed up',
  profile_update: 'A profile changed',
  verification_update: 'A verification changed status',
  feedback_update: 'Feedback was left or changed',
  feedback_delete: 'Feedback was deleted',
  carbooking_approve: 'A booking was approved',
  carbooking_cancel: 'An approved booking was cancelled',
  carbooking_use: 'A booking started: the car was picked up',
  carbooking_extend: 'A booking was extended',
  carbooking_return: 'A car was returned',
  carbooking_complete: 'A booking was completed',
} as const satisfies Record<EventName, string>;
const eventChoices: Choice[] = eventNames.map((e) => ({ value: e, label: e, hint: eventHints[e] }));
const path = (s: Pick<Sub, 'id'>) => `${BASE}/webhooks/${s.id}`;

export function state(s: Sub): Html {
  if (s.isActive) return html`<span class="badge badge-active">Active</span>`;
  const why = {
    Manual: 'Paused',
    Failing: 'Disabled: failing for 5 days',
    Gone: 'Disabled: the receiver answered 410 Gone',
  };
  return html`<span class="badge badge-suspended">${why[s.disabledReason ?? 'Manual']}</span>`;
}

export function listPage(p: { total: number; limit: number; offset: number; nodes: Sub[] }): Html {
  const rows = p.nodes.map(
    (
      s,
    ) => html`<tr><th scope="row"><a href="${path(s)}">${s.name}</a></th><td><code>${s.event}</code></td><td class="mono">${s.config.url}</td>
<td>${state(s)}</td><td>${s.consecutiveFailures}</td><td>${when(s.lastSuccessDateUtc)}</td><td>${when(s.lastFailureDateUtc)}</td></tr>`,
  );
  return html`<p><a class="button" href="${BASE}/webhooks/new">Subscribe to events</a></p>
<table><caption>${p.total} subscription${p.total === 1 ? '' : 's'}</caption><thead><tr><th scope="col">Name</th><th scope="col">Event</th><th scope="col">URL</th>
<th scope="col">State</th><th scope="col">Failures in a row</th><th scope="col">Last success</th><th scope="col">Last failure</th></tr></thead><tbody>${rows}</tbody></table>
${pager(`${BASE}/webhooks`, {}, p)}`;
}

export function formPage(csrf: string, d?: WebhookDraft, problem?: Problem): Html {
  const name = fieldError(problem, 'name');
  const url = fieldError(problem, 'config.url');
  const secret = fieldError(problem, 'config.secret');
  return html`<form method="post" action="${BASE}/webhooks" novalidate>${csrfField(csrf)}
<p><label for="f-name">Name</label> <span class="hint">4 to 100 characters.</span><input id="f-name" name="name" required minlength="4" maxlength="100" value="${d?.name ?? ''}"${name.attrs}>${name.message}</p>
<p><label for="f-config.url">URL</label> <span class="hint" id="h-url">The receiver’s https address; every event is POSTed there, signed.</span>
<input id="f-config.url" name="url" type="url" required class="mono" value="${d?.url ?? ''}" aria-describedby="h-url"${url.attrs}>${url.message}</p>
${checkboxes('events', 'Events: one subscription is made for each', eventChoices, d?.events ?? [], problem)}
<p><label for="f-config.secret">Secret</label> <span class="hint">Optional: base64 of 24 to 64 random bytes (with or without <code>whsec_</code>). Left empty, one is generated for each subscription.</span>
<input id="f-config.secret" name="secret" class="mono" autocomplete="off" value="${d?.secret ?? ''}"${secret.attrs}>${secret.message}</p>
<p class="actions"><button type="submit">Subscribe</button> <a href="${BASE}/webhooks">Cancel</a></p></form>`;
}

export function secretsPage(subs: (Sub & { secret: string })[], kind: 'created' | 'rotated'): Html {
  const items = subs.map(
    (s, i) =>
      html`<li><h2><a href="${path(s)}">${s.name}</a>: <code>${s.event}</code></h2>${secretField(`secret-${i}`, `Signing secret for ${s.event}`, s.secret)}</li>`,
  );
  return html`<div class="warning" role="alert"><p><strong>Copy the signing secret${subs.length > 1 ? 's' : ''} now: shown only this once.</strong>
Receivers verify the <code>webhook-signature</code> header with it${kind === 'rotated' ? '; the previous secret keeps signing beside the new one for 24 hours' : ''}.</p></div>
<ul class="plain">${items}</ul><p><a class="button" href="${BASE}/webhooks">I have stored ${subs.length > 1 ? 'them' : 'it'}: all subscriptions</a></p>`;
}

function deliveryItem(d: Delivery, csrf: string, subId: string): Html {
  const attempts = d.attempts.map(
    (a) =>
      html`<tr><td>${when(a.attemptedDateUtc)}</td><td>${a.trigger}</td><td>${a.statusCode ?? html`<span class="muted">no response</span>`}</td><td>${a.durationMs} ms</td><td>${a.error ?? ''}</td></tr>`,
  );
  const redeliver = ['Succeeded', 'Failed', 'Skipped'].includes(d.status)
    ? actionButton(`${BASE}/webhooks/deliveries/${d.id}/redeliver`, 'Redeliver', csrf, {
        fields: { subscriptionId: subId },
      })
    : '';
  return html`<li class="delivery"><h3><code>${d.event}</code> <span class="badge badge-${d.status.toLowerCase()}">${d.status}</span> <span class="mono muted">${d.id}</span></h3>
<p>Raised ${when(d.createdDateUtc)}${d.nextAttemptDateUtc ? html`; next attempt ${when(d.nextAttemptDateUtc)}` : ''}. ${redeliver}</p>
${attempts.length ? html`<table class="attempts"><caption>${attempts.length} attempt${attempts.length === 1 ? '' : 's'}</caption><thead><tr><th scope="col">When</th><th scope="col">Trigger</th><th scope="col">Status code</th><th scope="col">Duration</th><th scope="col">Error</th></tr></thead><tbody>${attempts}</tbody></table>` : html`<p class="muted">Not attempted yet.</p>`}
<details><summary>Payload</summary><pre class="mono">${JSON.stringify(d.payload, null, 2)}</pre></details></li>`;
}

export function subscriptionPage(
  s: Sub,
  deliveries: { total: number; limit: number; offset: number; nodes: Delivery[] },
  csrf: string,
): Html {
  const toggle = s.isActive
    ? actionButton(`${path(s)}/pause`, 'Pause', csrf)
    : actionButton(`${path(s)}/resume`, 'Resume', csrf);
  return html`<dl class="pairs"><dt>Event</dt><dd><code>${s.event}</code></dd><dt>URL</dt><dd class="mono">${s.config.url}</dd><dt>State</dt><dd>${state(s)}</dd>
<dt>Failures in a row</dt><dd>${s.consecutiveFailures}</dd><dt>Last success</dt><dd>${when(s.lastSuccessDateUtc)}</dd><dt>Last failure</dt><dd>${when(s.lastFailureDateUtc)}</dd></dl>
<p>${auditLink('WebhookSubscription', s.id)}</p>
<section aria-labelledby="actions"><h2 id="actions">Actions</h2><p class="actions">${toggle} ${actionButton(`${path(s)}/test`, 'Send a test event', csrf)}
${actionButton(`${path(s)}/rotate-secret`, 'Rotate the secret', csrf)} <a class="button danger" href="${path(s)}/delete">Delete…</a></p></section>
<section aria-labelledby="deliveries"><h2 id="deliveries">Deliveries</h2><p><a href="${path(s)}#deliveries">Reload</a> to see new deliveries and attempts.</p>
${deliveries.nodes.length ? html`<ol class="plain">${deliveries.nodes.map((d) => deliveryItem(d, csrf, s.id))}</ol>` : html`<p class="muted">No deliveries yet.</p>`}
${pager(path(s), {}, deliveries)}</section><p><a href="${BASE}/webhooks">All subscriptions</a></p>`;
}

export function confirmDeletePage(s: Sub, csrf: string): Html {
  return html`<div class="warning"><p>Deleting <strong>${s.name}</strong> stops deliveries of <code>${s.event}</code> to <span class="mono">${s.config.url}</span> at once: pending deliveries are cancelled. This cannot be undone.</p></div>
<p class="actions">${actionButton(`${path(s)}/delete`, `Delete ${s.name}`, csrf, { cls: 'danger' })} <a href="${path(s)}">Cancel</a></p>`;
}
