// Client applications: list, create (the secret shown once), details with the integration panel, rotate the
// secret, suspend / reactivate, delete after confirmation. Redirect URIs are checked as the server checks them.
import type Router from '@koa/router';
import type Koa from 'koa';
import { redirectUriProblem } from '../clientapps/redirect-uris.js';
import {
  type App,
  appPage,
  confirmDeletePage,
  type Draft,
  formPage,
  listPage,
  secretPage,
} from './clientapps.pages.js';
import { describeError } from './errors.js';
import { html } from './html.js';
import { type Kit, type Op, text, values } from './kit.js';
import { BASE, noticeOf } from './layout.js';
import { offsetOf } from './query.js';

const FIELDS = `id name description clientId grantTypes redirectUris allowedScopes allowRefresh isFirstParty status
  lastUsedDateUtc connectedUsers createdDateUtc lastModifiedDateUtc`;
const LIST = `query($offset: Int) { clientApplications(sort: "name", limit: 50, offset: $offset) {
  total limit offset nodes { ${FIELDS} } } }`;
const ONE = `query($id: UUID!) { clientApplication(id: $id) { ${FIELDS} } }`;
const CREATE = `mutation($input: CreateClientApplicationInput!) { createClientApplication(input: $input) { ${FIELDS} clientSecret } }`;
const ROTATE = `mutation($id: UUID!) { rotateClientApplicationSecret(id: $id) { ${FIELDS} clientSecret } }`;
const SUSPEND = `mutation($id: UUID!) { suspendClientApplication(id: $id) { id } }`;
const REACTIVATE = `mutation($id: UUID!) { reactivateClientApplication(id: $id) { id } }`;
const DELETE = `mutation($id: UUID!) { deleteClientApplication(id: $id) { id } }`;

export const clientLabels = {
  name: 'Name',
  description: 'Description',
  grantTypes: 'Grant types',
  allowedScopes: 'Allowed scopes',
  redirectUris: 'Redirect URIs',
  allowRefresh: 'Refresh tokens',
} as const;

const draftOf = (form: Record<string, unknown>): Draft => ({
  name: text(form, 'name'),
  description: text(form, 'description'),
  grantTypes: values(form, 'grantTypes'),
  allowedScopes: values(form, 'allowedScopes'),
  redirectUris: text(form, 'redirectUris')
    .split(/\r?\n/)
    .map((u) => u.trim())
    .filter(Boolean),
  allowRefresh: text(form, 'allowRefresh') === 'on',
});

const idOf = (ctx: Koa.Context): string => String(ctx.params.id);

/** Loads the app of the path, or shows why it cannot. */
async function load(ctx: Koa.Context, op: Op): Promise<App | undefined> {
  const r = await op.api.run<{ clientApplication: App }>(ONE, { id: idOf(ctx) });
  if (r.ok) return r.data.clientApplication;
  op.page({
    title: 'Client application',
    section: 'clients',
    body: listBack(),
    problem: describeError(r.error),
  });
  return undefined;
}

const listBack = () => html`<p><a href="${BASE}/clients">All client applications</a></p>`;

export function serveClientAppPages(router: Router, kit: Kit): void {
  const { operator } = kit;

  router.get(
    '/clients',
    operator(async (ctx, op) => {
      const offset = offsetOf(ctx.query);
      const r = await op.api.run<{
        clientApplications: { total: number; limit: number; offset: number; nodes: App[] };
      }>(LIST, { offset });
      if (!r.ok)
        return op.page({
          title: 'Client applications',
          section: 'clients',
          body: html``,
          problem: describeError(r.error),
        });
      op.page({
        title: 'Client applications',
        section: 'clients',
        notice: noticeOf(ctx.query.notice),
        body: listPage(r.data.clientApplications),
      });
    }),
  );

  router.get(
    '/clients/new',
    operator(async (_ctx, op) => {
      op.page({ title: 'New client application', section: 'clients', body: formPage(op.user.csrf) });
    }),
  );

  router.post(
    '/clients',
    operator(async (ctx, op) => {
      const draft = draftOf(op.form);
      const bad = draft.redirectUris.map((u) => [u, redirectUriProblem(u)] as const).find(([, p]) => p);
      if (bad) {
        const problem = {
          summary: 'Some fields need your attention.',
          fields: [
            {
              field: 'redirectUris',
              label: clientLabels.redirectUris,
              message: `Redirect URIs: ${bad[0]} ${bad[1]}`,
            },
          ],
        };
        return op.page({
          title: 'New client application',
          section: 'clients',
          problem,
          body: formPage(op.user.csrf, draft, problem),
        });
      }
      const r = await op.api.run<{ createClientApplication: App & { clientSecret: string } }>(CREATE, {
        input: draft,
      });
      if (!r.ok) {
        const problem = describeError(r.error, clientLabels);
        return op.page({
          title: 'New client application',
          section: 'clients',
          problem,
          body: formPage(op.user.csrf, draft, problem),
        });
      }
      const app = r.data.createClientApplication;
      op.page(
        {
          title: `${app.name} is registered`,
          section: 'clients',
          body: secretPage(app, app.clientSecret, kit.site(ctx).baseUrl, 'created', kit.site(ctx).caFile),
        },
        201,
      );
    }),
  );

  router.get(
    '/clients/:id',
    operator(async (ctx, op) => {
      const app = await load(ctx, op);
      if (app)
        op.page({
          title: app.name,
          section: 'clients',
          notice: noticeOf(ctx.query.notice),
          body: appPage(app, kit.site(ctx).baseUrl, op.user.csrf, kit.site(ctx).caFile),
        });
    }),
  );

  router.post(
    '/clients/:id/rotate-secret',
    operator(async (ctx, op) => {
      const r = await op.api.run<{ rotateClientApplicationSecret: App & { clientSecret: string } }>(ROTATE, {
        id: idOf(ctx),
      });
      if (!r.ok)
        return op.page({
          title: 'The secret was not rotated',
          section: 'clients',
          body: listBack(),
          problem: describeError(r.error),
        });
      const app = r.data.rotateClientApplicationSecret;
      op.page({
        title: `New secret for ${app.name}`,
        section: 'clients',
        body: secretPage(app, app.clientSecret, kit.site(ctx).baseUrl, 'rotated', kit.site(ctx).caFile),
      });
    }),
  );

  for (const [action, doc, notice] of [
    ['suspend', SUSPEND, 'client-suspended'],
    ['reactivate', REACTIVATE, 'client-reactivated'],
  ] as const)
    router.post(
      `/clients/:id/${action}`,
      operator(async (ctx, op) => {
        const r = await op.api.run(doc, { id: idOf(ctx) });
        if (!r.ok)
          return op.page({
            title: `The application was not ${action === 'suspend' ? 'suspended' : 'reactivated'}`,
            section: 'clients',
            body: listBack(),
            problem: describeError(r.error),
          });
        ctx.status = 303;
        ctx.redirect(`${BASE}/clients/${idOf(ctx)}?notice=${notice}`);
      }),
    );

  router.get(
    '/clients/:id/delete',
    operator(async (ctx, op) => {
      const app = await load(ctx, op);
      if (app)
        op.page({
          title: `Delete ${app.name}?`,
          section: 'clients',
          body: confirmDeletePage(app, op.user.csrf),
        });
    }),
  );

  router.post(
    '/clients/:id/delete',
    operator(async (ctx, op) => {
      const r = await op.api.run(DELETE, { id: idOf(ctx) });
      if (!r.ok)
        return op.page({
          title: 'The application was not deleted',
          section: 'clients',
          body: listBack(),
          problem: describeError(r.error),
        });
      ctx.status = 303;
      ctx.redirect(`${BASE}/clients?notice=client-deleted`);
    }),
  );
}
