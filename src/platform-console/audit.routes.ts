// The platform's own audit trail (CONTRACT §22): what was done to which car share, by whom; filtered by car share and
// action, newest first.
import type Router from '@koa/router';
import type { Entry as AuditEntry } from '../dashboard/audit.pages.js';
import { pager } from '../dashboard/forms.js';
import { type Html, html, when } from '../dashboard/html.js';
import type { Kit } from '../dashboard/kit.js';
import { malformedIds, noResults, offsetOf, param } from '../dashboard/query.js';
import { shortId, shortIdLink } from '../dashboard/short-id.js';
import { AUDIT, type Page, problemOf } from './api.js';
import { carSharePath } from './car-shares.pages.js';

/** The dashboard's audit entry, and the car share the platform action was about. */
interface Entry extends AuditEntry {
  carShareId: string;
}

interface AuditQuery {
  carShareId: string;
  action: string;
}

const PATH = '/platform/audit';

function auditPage(page: Page<Entry>, f: AuditQuery): Html {
  const filters = html`<form class="filters" method="get" action="${PATH}" role="search">
<p><label for="f-carShareId">Car share id</label> <input id="f-carShareId" name="carShareId" value="${f.carShareId}" autocomplete="off" size="38"></p>
<p><label for="f-action">Action</label> <input id="f-action" name="action" value="${f.action}" autocomplete="off" size="24" placeholder="e.g. CarShareSuspended"></p>
<p><button type="submit">Search</button></p></form>`;
  const rows = page.nodes.map(
    (e) => html`<tr><td>${when(e.occurredDateUtc)}</td><td><code>${e.action}</code></td>
<td>${shortIdLink(e.carShareId, carSharePath(e.carShareId), 'car share id')}</td>
<td>${e.actorType}${e.actorId ? html` ${shortId(e.actorId, 'actor id')}` : ''}</td>
<td>${e.subjectType} ${shortId(e.subjectId, 'subject id')}</td><td><code>${e.requestId ?? ''}</code></td></tr>`,
  );
  const table = page.nodes.length
    ? html`<table><caption class="visually-hidden">Platform audit entries</caption><thead><tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Car share</th>
<th scope="col">Actor</th><th scope="col">Subject</th><th scope="col">Request id</th></tr></thead><tbody>${rows}</tbody></table>`
    : html`<p class="empty">No entry matches.</p>`;
  return html`${filters}${table}${pager(PATH, { carShareId: f.carShareId || undefined, action: f.action || undefined }, page)}`;
}

export function servePlatformAudit(router: Router, kit: Kit): void {
  router.get(
    '/audit',
    kit.operator(async (ctx, op) => {
      const f: AuditQuery = { carShareId: param(ctx, 'carShareId'), action: param(ctx, 'action') };
      const page = { title: 'Platform audit', section: 'audit' };
      const malformed = malformedIds({ carShareId: f.carShareId }, { carShareId: 'Car share id' });
      if (malformed) return op.page({ ...page, body: auditPage(noResults(50), f), problem: malformed });
      const r = await op.api.run<{ platformAudit: Page<Entry> }>(AUDIT, {
        carShareId: f.carShareId || null,
        action: f.action || null,
        offset: offsetOf(ctx.query),
      });
      op.page({
        ...page,
        body: auditPage(r.ok ? r.data.platformAudit : noResults(50), f),
        problem: r.ok ? undefined : problemOf(r.error),
      });
    }),
  );
}
