// "Add ServiceStack Reference" end to end (CONTRACT §16): the DTOs a running service serves at /types/typescript
// compile with `tsc --strict` beside @servicestack/client, together with a typed program written against them;
// that compiled program then drives the service through JsonServiceClient — search, get, create (201), update,
// an action, a booking, a webhook subscription, delete (204), and an error read as ResponseStatus.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import tls from 'node:tls';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inHours, world } from '../factories/bookings.js';
import { asOps } from '../support/actors.js';
import { PUBLIC_URL, useRest } from './support.js';
import { SCENARIO } from './typed-client.scenario.js';

const root = resolve(import.meta.dirname, '../..');
const defaultCAs = tls.getCACertificates('default');
const env = useRest({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
let dir: string;
let dtos: string;
let openapi: string;
/** The compiled typed program (typed-client.scenario.ts), loaded as a module. */
let program: any;

beforeAll(async () => {
  // JsonServiceClient uses the global fetch, which trusts the default CA store: add the service's certificate.
  tls.setDefaultCACertificates([...defaultCAs, env.service.cert]);
  const r = await env.call('GET', '/types/typescript');
  expect(r.status).toBe(200);
  dtos = r.text;
  openapi = (await env.call('GET', '/api/openapi.json')).text;
  dir = mkdtempSync(join(tmpdir(), 'carshare-dtos-'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  writeFileSync(join(dir, 'dtos.ts'), dtos);
  writeFileSync(join(dir, 'scenario.ts'), SCENARIO);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: 'ES2022',
        module: 'NodeNext',
        lib: ['ES2022', 'DOM'],
        outDir: 'out',
        skipLibCheck: false,
      },
      files: ['dtos.ts', 'scenario.ts'],
    }),
  );
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const out = await promisify(execFile)(process.execPath, [tsc, '-p', dir]).catch(
    (e: { stdout: string; stderr: string }) => e,
  );
  expect(`${out.stdout}${out.stderr}`).toBe('');
  program = await import(pathToFileURL(join(dir, 'out/scenario.js')).href);
}, 120_000);
afterAll(async () => {
  tls.setDefaultCACertificates(defaultCAs);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it("is ServiceStack's format: BaseUrl header, IReturn/IReturnVoid, the three methods, responses per envelope", () => {
  expect(dtos).toMatch(/^\/\* Options:\n(.*\n)*BaseUrl: https:\/\/carshare\.test\n/);
  expect(dtos).toContain('export class GetCar implements IReturn<GetCarResponse>, IGet');
  expect(dtos).toContain("public getTypeName() { return 'GetCar'; }");
  expect(dtos).toContain("public getMethod() { return 'GET'; }");
  expect(dtos).toContain('public createResponse() { return new GetCarResponse(); }');
  expect(dtos).toContain('export class DeleteCar implements IReturnVoid, IDelete');
  expect(dtos).toMatch(
    /export class GetCarResponse\n\{\n {4}public Car!: Car;\n {4}public ResponseStatus\?: ResponseStatus;/,
  );
  expect(dtos).toMatch(
    /export class QueryCarsResponse\n\{\n {4}public Cars!: Car\[\];\n {4}public Metadata!: Metadata;\n {4}public ResponseStatus\?: ResponseStatus;/,
  );
  // Every operation of the OpenAPI document has its request class, with its verb.
  const doc = JSON.parse(openapi);
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>))
    for (const [method, op] of Object.entries(ops)) {
      const verb = method.charAt(0).toUpperCase() + method.slice(1);
      expect(dtos, `${method} ${path}`).toMatch(
        new RegExp(
          `// @Route\\("${path.replace(/[{}]/g, '\\$&')}", "${method.toUpperCase()}"\\)\n.*\nexport class ${op.operationId} implements IReturn(Void|<${op.operationId}Response>), I${verb}\n`,
        ),
      );
      expect(dtos).toContain(`public getMethod() { return '${method.toUpperCase()}'; }`);
    }
  // Every REST resource of CONTRACT §2 is a class.
  for (const resource of [
    'UserAccount',
    'Profile',
    'Car',
    'Booking',
    'Verification',
    'Feedback',
    'Rating',
    'Unavailability',
    'ClientApplication',
    'WebhookSubscription',
    'WebhookDelivery',
    'Summary',
  ])
    expect(dtos).toContain(`export class ${resource}\n`);
});

it('answers If-None-Match with 304', async () => {
  const first = await env.call('GET', '/types/typescript');
  expect(first.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  const again = await env.call('GET', '/types/typescript', {
    headers: { 'If-None-Match': first.headers.get('etag')! },
  });
  expect(again.status).toBe(304);
});

it('drives a car through its life with typed requests', async () => {
  const w = await world(env.h);
  const owner = program.connect(env.origin, env.tokenFor(w.owner.actor));
  const created = await program.createCar(owner.client);
  expect(owner.statuses).toEqual([201]);
  expect(owner.locations).toEqual([`${PUBLIC_URL}/api/cars/${created.Id}`]);
  expect(created).toMatchObject({ Make: 'Ford', Model: 'Fiesta', Status: 'Draft', Color: 'Blue' });

  const got = await program.getCar(owner.client, created.Id);
  expect(got).toMatchObject({ Id: created.Id, Make: 'Ford' });
  expect(got).not.toHaveProperty('Rating');

  const updated = await program.updateCar(owner.client, created.Id);
  expect(updated).toMatchObject({ Model: 'Focus' });
  expect(updated).not.toHaveProperty('Color');
  const listed = await program.listCar(owner.client, created.Id);
  expect(listed.Status).toBe('Listed');

  const search = await program.searchCars(owner.client, w.owner.id);
  expect(search.ids.sort()).toEqual([created.Id, w.carId].sort());
  expect(search.total).toBe(2);

  // The same request through /json/reply (`basePath` unset), ServiceStack's other predefined route.
  const reply = await program.getCarByReply(env.origin, env.tokenFor(w.owner.actor), created.Id);
  expect(reply.Id).toBe(created.Id);

  expect(await program.deleteCar(owner.client, created.Id)).toBeUndefined();
  expect(owner.statuses).toEqual([201, 200, 202, 202, 200, 204]);
});

it('requests and approves a booking, and subscribes to webhooks', async () => {
  const w = await world(env.h);
  const borrower = program.connect(env.origin, env.tokenFor(w.borrower.actor));
  const owner = program.connect(env.origin, env.tokenFor(w.owner.actor));
  const requested = await program.requestBooking(
    borrower.client,
    w.carId,
    inHours(env.h, 24),
    inHours(env.h, 26),
  );
  expect(requested).toMatchObject({ CarId: w.carId, State: 'Pending' });
  const approved = await program.approveBooking(owner.client, requested.Id);
  expect(approved.State).toBe('Approved');
  expect(await program.bookingStates(borrower.client)).toEqual(['Approved']);
  expect([...borrower.statuses, ...owner.statuses]).toEqual([201, 200, 202]);

  const ops = program.connect(env.origin, env.tokenFor(asOps()));
  const subs = await program.subscribe(ops.client);
  expect(ops.statuses).toEqual([201]);
  expect(subs.map((s: { Event: string }) => s.Event)).toEqual(['carbooking_approve', 'carbooking_cancel']);
});

it('reads errors as ResponseStatus with field errors', async () => {
  const w = await world(env.h);
  const owner = program.connect(env.origin, env.tokenFor(w.owner.actor));
  const invalid = await program.invalidCar(owner.client);
  expect(invalid.errorCode).toBe('NotEmpty');
  expect(invalid.errors).toEqual([expect.objectContaining({ errorCode: 'NotEmpty', fieldName: 'Make' })]);
  const missing = await program.missingCar(owner.client);
  expect(missing).toMatchObject({ errorCode: 'NotFound' });
  expect(owner.statuses).toEqual([400, 404]);
});
