// Webhook subscriptions: list, create (events picked from the list; each secret shown once), pause / resume,
// rotate the secret, send a test, delete after confirmation; a subscription's deliveries with their attempts,
// and redelivery.
import type Router from '@koa/router';
import type Koa from 'koa';
import { isUuid } from '../shared/ids.js';
import { describeError } from './errors.js';
import { html } from './html.js';
import { type Kit, type Op, text, values } from './kit.js';
import { BASE, noticeOf } from './layout.js';
import { offsetOf } from './query.js';
import {
  confirmDeletePage,
  type Delivery,
  formPage,
  listPage,
  type Sub,
  secretsPage,
  subscriptionPage,
  type WebhookDraft,
} from './webhooks.pages.js';

const FIELDS = `id name event config { url } isActive disabledReason consecutiveFailures lastSuccessDateUtc
  lastFailureDateUtc createdDateUtc`;
const LIST = `query($offset: Int) { webhookSubscriptions(limit: 50, offset: $offset) { total limit offset nodes { ${FIELDS} } } }`;
const ONE = `query($id: UUID!, $offset: Int) { webhookSubscription(id: $id) { ${FIELDS} }
  webhookDeliveries(subscriptionId: $id, limit: 20, offset: $offset) { total limit offset nodes {
    id event status nextAttemptDateUtc createdDateUtc payload
    attempts { attemptedDateUtc statusCode error durationMs trigger } } } }`;
const CREATE = `mutation($input: CreateWebhookSubscriptionsInput!) { createWebhookSubscriptions(input: $input) { ${FIELDS} secret } }`;
const UPDATE = `mutation($id: UUID!, $input: UpdateWebhookSubscriptionInput!) { updateWebhookSubscription(id: $id, input: $input) { id } }`;
const ROTATE = `mutation($id: UUID!) { rotateWebhookSubscriptionSecret(id: $id) { ${FIELDS} secret } }`;
const TEST = `mutation($id: UUID!) { testWebhookSubscription(id: $id) { id } }`;
const DELETE = `mutation($id: UUID!) { deleteWebhookSubscription(id: $id) { id } }`;
const REDELIVER = `mutation($id: String!) { redeliverWebhookDelivery(id: $id) { id subscriptionId } }`;

export const webhookLabels = {
  name: 'Name',
  events: 'Events',
  'config.url': 'URL',
  url: 'URL',
  'config.secret': 'Secret',
} as const;

type Page<T> = { total: number; limit: number; offset: number; nodes: T[] };
const idOf = (ctx: Koa.Context): string => String(ctx.params.id);
const back = (id?: string) =>
  html`<p><a href="${id ? `${BASE}/webhooks/${id}` : `${BASE}/webhooks`}">${id ? 'Back to the subscription' : 'All subscriptions'}</a></p>`;

export function serveWebhookPages(router: Router, kit: Kit): void {
  const { operator } = kit;
  const refused = (op: Op, title: string, e: Parameters<typeof describeError>[0], id?: string) =>
    op.page({ title, section: 'webhooks', body: back(id), problem: describeError(e, webhookLabels) });

  router.get(
    '/webhooks',
    operator(async (ctx, op) => {
      const r = await op.api.run<{ webhookSubscriptions: Page<Sub> }>(LIST, {
        offset: offsetOf(ctx.query),
      });
      if (!r.ok) return refused(op, 'Webhooks', r.error);
      op.page({
        title: 'Webhooks',
        section: 'webhooks',
        notice: noticeOf(ctx.query.notice),
        body: listPage(r.data.webhookSubscriptions),
      });
    }),
  );

  router.get(
    '/webhooks/new',
    operator(async (_ctx, op) => {
      op.page({ title: 'New webhook subscription', section: 'webhooks', body: formPage(op.user.csrf) });
    }),
  );

  router.post(
    '/webhooks',
    operator(async (_ctx, op) => {
      const draft: WebhookDraft = {
        name: text(op.form, 'name'),
        url: text(op.form, 'url'),
        events: values(op.form, 'events'),
        secret: text(op.form, 'secret'),
      };
      const input = {
        name: draft.name,
        events: draft.events,
        config: { url: draft.url, ...(draft.secret ? { secret: draft.secret } : {}) },
      };
      const r = await op.api.run<{ createWebhookSubscriptions: (Sub & { secret: string })[] }>(CREATE, {
        input,
      });
      if (!r.ok) {
        const problem = describeError(r.error, webhookLabels);
        return op.page({
          title: 'New webhook subscription',
          section: 'webhooks',
          problem,
          body: formPage(op.user.csrf, draft, problem),
        });
      }
      op.page(
        {
          title: 'Subscribed',
          section: 'webhooks',
          body: secretsPage(r.data.createWebhookSubscriptions, 'created'),
        },
        201,
      );
    }),
  );

  router.get(
    '/webhooks/:id',
    operator(async (ctx, op) => {
      const r = await op.api.run<{ webhookSubscription: Sub; webhookDeliveries: Page<Delivery> }>(ONE, {
        id: idOf(ctx),
        offset: offsetOf(ctx.query),
      });
      if (!r.ok) return refused(op, 'Webhook subscription', r.error);
      const s = r.data.webhookSubscription;
      op.page({
        title: s.name,
        section: 'webhooks',
        notice: noticeOf(ctx.query.notice),
        body: subscriptionPage(s, r.data.webhookDeliveries, op.user.csrf),
      });
    }),
  );

  const act = (
    action: string,
    run: (
      op: Op,
      id: string,
    ) => Promise<{ ok: true } | { ok: false; error: Parameters<typeof describeError>[0] }>,
    notice: string,
    title: string,
  ) =>
    router.post(
      `/webhooks/:id/${action}`,
      operator(async (ctx, op) => {
        const r = await run(op, idOf(ctx));
        if (!r.ok) return refused(op, title, r.error, idOf(ctx));
        ctx.status = 303;
        ctx.redirect(`${BASE}/webhooks/${idOf(ctx)}?notice=${notice}`);
      }),
    );
  act(
    'pause',
    (op, id) => op.api.run(UPDATE, { id, input: { isActive: false } }),
    'webhook-paused',
    'The subscription was not paused',
  );
  act(
    'resume',
    (op, id) => op.api.run(UPDATE, { id, input: { isActive: true } }),
    'webhook-resumed',
    'The subscription was not resumed',
  );
  act('test', (op, id) => op.api.run(TEST, { id }), 'webhook-tested', 'The test was not sent');

  router.post(
    '/webhooks/:id/rotate-secret',
    operator(async (ctx, op) => {
      const r = await op.api.run<{ rotateWebhookSubscriptionSecret: Sub & { secret: string } }>(ROTATE, {
        id: idOf(ctx),
      });
      if (!r.ok) return refused(op, 'The secret was not rotated', r.error, idOf(ctx));
      op.page({
        title: 'New signing secret',
        section: 'webhooks',
        body: secretsPage([r.data.rotateWebhookSubscriptionSecret], 'rotated'),
      });
    }),
  );

  router.get(
    '/webhooks/:id/delete',
    operator(async (ctx, op) => {
      const r = await op.api.run<{ webhookSubscription: Sub }>(ONE, { id: idOf(ctx), offset: 0 });
      if (!r.ok) return refused(op, 'Webhook subscription', r.error);
      const s = r.data.webhookSubscription;
      op.page({ title: `Delete ${s.name}?`, section: 'webhooks', body: confirmDeletePage(s, op.user.csrf) });
    }),
  );

  router.post(
    '/webhooks/:id/delete',
    operator(async (ctx, op) => {
      const r = await op.api.run(DELETE, { id: idOf(ctx) });
      if (!r.ok) return refused(op, 'The subscription was not deleted', r.error, idOf(ctx));
      ctx.status = 303;
      ctx.redirect(`${BASE}/webhooks?notice=webhook-deleted`);
    }),
  );

  router.post(
    '/webhooks/deliveries/:id/redeliver',
    operator(async (ctx, op) => {
      const r = await op.api.run<{ redeliverWebhookDelivery: { subscriptionId: string } }>(REDELIVER, {
        id: idOf(ctx),
      });
      if (!r.ok)
        return refused(
          op,
          'The delivery was not sent again',
          r.error,
          isUuid(text(op.form, 'subscriptionId')) ? text(op.form, 'subscriptionId') : undefined,
        );
      ctx.status = 303;
      ctx.redirect(
        `${BASE}/webhooks/${r.data.redeliverWebhookDelivery.subscriptionId}?notice=webhook-redelivered#deliveries`,
      );
    }),
  );
}
