// Correctness before speed: each variant answers the scenario's request once, and its answer must equal the
// service's (JSON equal, key order included) before it is measured. Returns the body hash the load generator
// then checks on every answer, or why a variant is left out.
import { createHash } from 'node:crypto';
import { Agent, request } from 'undici';
import { toRest } from '../../rest-facade/names.js';
import { type Bench, jobFor } from './measure.js';
import type { Scenario } from './scenarios.js';

export interface Answer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

let checks = 0;

export async function fetchOnce(b: Bench, port: number, r: Parameters<typeof jobFor>[2]): Promise<Answer> {
  // The process on that port: its own tokens (the landed code's answers another authorization server's).
  const p = [...b.processes.values()].find((x) => x.port === port) ?? b.processes.get('ours')!;
  const job = jobFor(b, p, r, 0);
  let path = job.path;
  let body = job.body;
  if (job.generator.kind === 'booking') {
    // The same car for every variant, in slots far beyond the measured runs'.
    const g = job.generator;
    const start = new Date(Date.parse(g.from) + (g.slotBase + 100_000 + checks++) * 7_200_000);
    path = path.replace('{car}', g.cars[0]!);
    body = JSON.stringify({
      StartDateUtc: start.toISOString(),
      EndDateUtc: new Date(start.getTime() + 3_600_000).toISOString(),
      Message: 'bench',
    });
    b.seq += 1;
  }
  const agent = new Agent({ connect: { ca: b.ca } });
  const res = await request(`https://localhost:${port}${path}`, {
    method: job.method,
    headers: job.headers,
    dispatcher: agent,
    ...(body === undefined ? {} : { body }),
  });
  const text = await res.body.text();
  await agent.close();
  return { status: res.statusCode, body: text, headers: res.headers as Record<string, string> };
}

const canonical = (s: string): string => {
  try {
    return JSON.stringify(JSON.parse(s));
  } catch {
    return s;
  }
};

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `…${a.slice(Math.max(0, i - 60), i + 60)}… vs …${b.slice(Math.max(0, i - 60), i + 60)}…`;
}

/** Booking answers differ in ids and times; the rest of the booking's own fields must agree. */
const GENERATED = new Set([
  'Id',
  'Reference',
  'RequestedDateUtc',
  'ApprovedDateUtc',
  'CreatedDateUtc',
  'LastModifiedDateUtc',
]);
function bookingDifference(ours: string, other: string): string | undefined {
  const a = JSON.parse(ours).Booking as Record<string, unknown>;
  const b = JSON.parse(other).Booking as Record<string, unknown>;
  for (const [k, v] of Object.entries(b)) {
    if (GENERATED.has(k) || k === 'StartDateUtc' || k === 'EndDateUtc') continue;
    if (JSON.stringify(a[k]) !== JSON.stringify(v))
      return `${k}: ${JSON.stringify(a[k])} vs ${JSON.stringify(v)}`;
  }
  const missing = Object.keys(b).filter((k) => !(k in a));
  return missing.length ? `fields the service does not answer: ${missing.join(', ')}` : undefined;
}

export async function checkScenario(
  b: Bench,
  s: Scenario,
  answers: Map<string, Answer>,
): Promise<{ expected: Map<string, string | undefined>; invalid: Map<string, string> }> {
  const expected = new Map<string, string | undefined>();
  const invalid = new Map<string, string>();
  const reference = new Map<string, Answer>();
  for (const v of s.variants) {
    const p = b.processes.get(v.process);
    if (!p) {
      invalid.set(v.label, 'not running');
      continue;
    }
    const a = await fetchOnce(b, p.port, v.request);
    answers.set(`${s.id}:${v.label}`, a);
    if (a.status !== v.request.expectStatus) {
      invalid.set(v.label, `status ${a.status}, expected ${v.request.expectStatus}: ${a.body.slice(0, 200)}`);
      continue;
    }
    const key = `${v.request.method} ${v.request.path}`;
    const ref = reference.get(key);
    if (!ref) reference.set(key, a);
    else if (s.check === 'json' && canonical(ref.body) !== canonical(a.body))
      invalid.set(
        v.label,
        `body differs from ${s.variants[0]!.label}: ${firstDifference(canonical(ref.body), canonical(a.body))}`,
      );
    else if (s.check === 'booking') {
      const d = bookingDifference(ref.body, a.body);
      if (d) invalid.set(v.label, `booking differs: ${d}`);
    }
    const fixedBody = v.request.generator.kind !== 'booking';
    expected.set(v.label, fixedBody ? createHash('sha1').update(a.body).digest('hex') : undefined);
  }
  // S4 asks GraphQL for what S1 asks REST: the same cars, once named the REST way.
  const graphql = answers.get('S4:ours');
  const rest = answers.get('S4:ours S1');
  if (s.id === 'S4' && graphql && rest) {
    const nodes = JSON.stringify(
      toRest((JSON.parse(graphql.body) as { data: { cars: { nodes: unknown } } }).data.cars.nodes),
    );
    if (nodes !== JSON.stringify((JSON.parse(rest.body) as { Cars: unknown }).Cars))
      invalid.set('ours', `GraphQL nodes differ from the REST Cars: ${firstDifference(nodes, rest.body)}`);
  }
  return { expected, invalid };
}
