// The dependency rule of DESIGN.md, checked on the import statements themselves: every folder and root file of
// src/ and rest-facade/ sits in one ordered list of layers and imports only from its own layer or those below.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return files(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** Every relative import of a file, as a path from the repository root. */
function importsOf(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  const specs = [
    ...src.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1] ?? m[2] ?? '');
  return specs.filter((s) => s.startsWith('.')).map((s) => relative(root, resolve(dirname(file), s)));
}

interface Edge {
  from: string;
  to: string;
}

const sourceFiles = [...files(join(root, 'src')), ...files(join(root, 'rest-facade'))].map((f) =>
  relative(root, f),
);
const edges: Edge[] = sourceFiles.flatMap((f) => importsOf(join(root, f)).map((to) => ({ from: f, to })));

/**
 * The layers, lowest first. Each may import only from its own layer and those before it, so a folder or root file
 * placed here is also where a new one must go. Names are folders (`src/cars`) or root files (`src/app.ts`).
 */
const layers: readonly (readonly string[])[] = [
  // A library of its own: knows nothing of src/ (and only the composition root uses it, checked below).
  ['rest-facade'],
  // The kernel: errors, ids, clock, logging, pagination; ambient type declarations.
  ['src/shared', 'src/types'],
  // Settings and certificates, read at start and by the few modules that need a value of them.
  ['src/config.ts', 'src/tls.ts', 'src/local-ca.ts'],
  // The metrics registry: the pool, the GraphQL plugin and the webhook sender record into it.
  ['src/metrics'],
  ['src/db'],
  // What a car share is: the scope every request and background step carries (DESIGN.md "Many car shares").
  ['src/carshares'],
  // Who is calling and what they may do: Actor, permission table, scope catalogue, bearer-token plumbing.
  ['src/access'],
  // The HTTP edge's own pieces: the caller resolved once per request, the probes, the shared Redis, rate limits.
  ['src/http'],
  ['src/events'],
  // The audit trail's record: the entry, and the declaration every subdomain's mutations make, which the schema
  // assembly writes inside each mutation's transaction.
  ['src/audit'],
  ['src/graphql'],
  // The operators' search over the audit trail (GET /api/audit, auditEntries).
  ['src/audit-search'],
  // Subdomains in dependency order (cars never import bookings).
  ['src/ratings'],
  ['src/verifications'],
  ['src/accounts'],
  ['src/cars'],
  ['src/feedback'],
  ['src/bookings'],
  ['src/clientapps'],
  ['src/webhooks'],
  // The webhook delivery engine: sends what the webhooks subdomain records; webhooks never import it.
  ['src/delivery'],
  ['src/reports'],
  // The sample network of `seed-demo`: made through the subdomains' commands, like any of their callers.
  ['src/demo'],
  // The authorization server: signs accounts in and checks client secrets, so it sits above their subdomains.
  ['src/oauth'],
  // The platform: car shares administered from the default car share (makes a car share's first operator and keys).
  ['src/platform'],
  ['src/dashboard'],
  // The platform console: the dashboard's pages code in a frame of its own, over the platform's API.
  ['src/platform-console'],
  ['src/web'],
  // The composition root: assembles everything above.
  [
    'src/edge.ts',
    'src/car-share-edge.ts',
    'src/background-invalidation.ts',
    'src/not-modified.ts',
    'src/mounted.ts',
    'src/client-error.ts',
    'src/drain.ts',
    'src/modules.ts',
    'src/bootstrap.ts',
    'src/app.ts',
    'src/server.ts',
    'src/sweeps.ts',
    'src/malloc-trim.ts',
    'src/service.ts',
    'src/admin.ts',
    'src/webhooks-cli.ts',
    'src/main.ts',
    'src/start.ts',
  ],
];

/** Imports against the order that are kept on purpose, each with why. `from` and `to` are exact files. */
const exemptions: readonly (Edge & { why: string })[] = [];

/** The unit a path belongs to: a root file (`src/app.ts`), or the top folder under src/ (`src/cars`). */
function unitOf(path: string): string {
  const parts = path.split('/');
  if (parts[0] === 'rest-facade') return 'rest-facade';
  if (parts.length === 2) return path.replace(/\.js$/, '.ts');
  return parts.slice(0, 2).join('/');
}

interface Verdict {
  /** Imports that go up the order. */
  violations: Edge[];
  /** Folders or root files found in the code but placed in no layer. */
  unplaced: string[];
}

/** The rule itself, over import edges alone: the real tree and the synthetic cases below both go through it. */
function checkLayers(
  all: readonly Edge[],
  order: readonly (readonly string[])[] = layers,
  allowed: readonly Edge[] = exemptions,
): Verdict {
  const rank = new Map(order.flatMap((layer, i) => layer.map((unit) => [unit, i] as const)));
  const unplaced = new Set<string>();
  const violations: Edge[] = [];
  for (const e of all) {
    const from = rank.get(unitOf(e.from));
    const to = rank.get(unitOf(e.to));
    if (from === undefined) unplaced.add(unitOf(e.from));
    if (to === undefined) unplaced.add(unitOf(e.to));
    if (from === undefined || to === undefined || to <= from) continue;
    if (allowed.some((a) => a.from === e.from && a.to === e.to)) continue;
    violations.push(e);
  }
  return { violations, unplaced: [...unplaced].sort() };
}

describe('the dependency rule', () => {
  it('sees the code it checks', () => {
    expect(edges.length).toBeGreaterThan(50);
    expect(
      edges.some((e) => e.from.startsWith('src/accounts/') && e.to.startsWith('src/verifications/')),
    ).toBe(true);
  });

  it('places every folder and root file of src/ and rest-facade/ in a layer', () => {
    // Files that import nothing and are imported by nothing still need a place: feed them as self-edges.
    const everyUnit = sourceFiles.map((f) => ({ from: f, to: f }));
    expect(checkLayers(everyUnit).unplaced).toEqual([]);
    expect(new Set(everyUnit.map((e) => unitOf(e.from))).size).toBeGreaterThan(25);
  });

  it('every import goes down the layers (or stays in its own)', () => {
    expect(checkLayers(edges)).toEqual({ violations: [], unplaced: [] });
  });

  it('exempts no import: every file imports downward only', () => {
    // The mechanism stays for a case that one day truly needs it (with its why); today none does, and a new
    // exemption has to be argued here. One that is no longer used would silently permit a future import.
    expect(exemptions).toEqual([]);
    for (const a of exemptions) expect(edges).toContainEqual({ from: a.from, to: a.to });
  });

  it('only the composition root reaches into rest-facade/', () => {
    expect(
      edges.filter(
        (e) =>
          e.to.startsWith('rest-facade/') && !e.from.startsWith('rest-facade/') && e.from !== 'src/app.ts',
      ),
    ).toEqual([]);
  });

  it('reports imports that go up the order, and folders it was not told about', () => {
    const bad = [
      { from: 'src/shared/x.ts', to: 'src/cars/y.js' },
      { from: 'src/access/x.ts', to: 'src/accounts/y.js' },
      { from: 'src/cars/x.ts', to: 'src/bookings/y.js' },
      { from: 'src/graphql/x.ts', to: 'src/app.js' },
      { from: 'rest-facade/x.ts', to: 'src/shared/y.js' },
    ];
    const fine = [
      { from: 'src/bookings/x.ts', to: 'src/cars/y.js' },
      { from: 'src/oauth/x.ts', to: 'src/accounts/y.js' },
      { from: 'src/cars/x.ts', to: 'src/cars/y.js' },
      { from: 'src/app.ts', to: 'src/server.js' },
    ];
    expect(checkLayers([...bad, ...fine])).toEqual({ violations: bad, unplaced: [] });
    expect(checkLayers([{ from: 'src/newfolder/x.ts', to: 'src/shared/y.js' }]).unplaced).toEqual([
      'src/newfolder',
    ]);
    // An exemption covers its exact edge only.
    const exempt = { from: 'src/shared/x.ts', to: 'src/cars/y.js' };
    expect(checkLayers([exempt], layers, [exempt]).violations).toEqual([]);
    expect(
      checkLayers([{ from: 'src/shared/z.ts', to: 'src/cars/y.js' }], layers, [exempt]).violations,
    ).toHaveLength(1);
  });
});

describe('database access (CONTRACT §24): only through a scope', () => {
  // Every EntityManager comes from src/db/scope.ts — carShareEm (a car share's scope, as the app role) or
  // deploymentEm (work across car shares, named as such) — and no other module opens connections of its own but
  // the LISTEN connections, which read no table.
  const opensItsOwn = /\borm\.em\b|\bgetNativeClient\(|new pg\.(Pool|Client)\(/;
  const listeners = new Set(['src/access/token.cache.ts', 'src/events/listen.ts']);
  const offenders = (files: readonly string[], read: (f: string) => string) =>
    files
      .filter((f) => f.startsWith('src/') && !f.startsWith('src/db/') && !listeners.has(f))
      .filter((f) => opensItsOwn.test(read(f)));

  it('no module outside src/db forks the ORM or opens a connection', () => {
    expect(offenders(sourceFiles, (f) => readFileSync(join(root, f), 'utf8'))).toEqual([]);
  });

  it('reports a module that forks the ORM itself', () => {
    const text: Record<string, string> = {
      'src/cars/x.ts': 'const em = orm.em.fork();',
      'src/cars/y.ts': 'const em = carShareEm(orm, id);',
      'src/db/z.ts': 'const em = orm.em.fork();',
    };
    expect(offenders(Object.keys(text), (f) => text[f]!)).toEqual(['src/cars/x.ts']);
  });

  it('leaves the LISTEN connections only to listening', () => {
    for (const f of listeners) {
      const sql = [...readFileSync(join(root, f), 'utf8').matchAll(/\.query\(\s*[`'"]([^`'"]*)/g)].map(
        (m) => m[1]!,
      );
      expect(
        sql.every((q) => /^(listen|unlisten|select 1)\b/i.test(q.trim())),
        `${f}: ${sql.join(' | ')}`,
      ).toBe(true);
    }
  });
});

describe('GraphQL execution: one execution service (src/graphql/execution.ts)', () => {
  // /graphql, graphql-ws, the REST facade and the dashboard run documents through the execution service only, so
  // the gate, compiled execution and the operation count are the same for every client.
  const service = 'src/graphql/execution.ts';
  /** graphql-js's functions that execute a document (subscriptions stay graphql-ws's own). */
  const executes =
    /import\s*\{[^}]*\b(execute|executeSync|experimentalExecuteIncrementally|graphql|graphqlSync)\b[^}]*\}\s*from\s*['"]graphql['"]/;
  const jit = /from\s*['"]graphql-jit['"]/;
  const compiledStore = /import\s*\{[^}]*\}\s*from\s*['"][./]*(?:graphql\/)?compiled\.js['"]/;
  /** Who may hold what: graphql's execute the service; graphql-jit the compiled store, which only the service uses. */
  const offenders = (files: readonly string[], read: (f: string) => string) =>
    files.flatMap((f) => {
      const text = read(f);
      const found: string[] = [];
      if (f !== service && executes.test(text)) found.push(`${f}: imports graphql's execute`);
      if (f !== 'src/graphql/compiled.ts' && jit.test(text)) found.push(`${f}: imports graphql-jit`);
      if (f !== service && compiledStore.test(text)) found.push(`${f}: imports the compiled documents`);
      return found;
    });

  it('no other module executes a document or compiles one', () => {
    expect(offenders(sourceFiles, (f) => readFileSync(join(root, f), 'utf8'))).toEqual([]);
  });

  it('reports a module that executes on its own', () => {
    const text: Record<string, string> = {
      'src/cars/x.ts': "import { execute, parse } from 'graphql';",
      'src/cars/v.ts': "import {\n  type DocumentNode,\n  execute as run,\n} from 'graphql';",
      'src/cars/y.ts': "import { type CompiledQuery, compileQuery } from 'graphql-jit';",
      'src/cars/z.ts': "import { parse, type ExecutionResult } from 'graphql';",
      'src/graphql/w.ts': "import { CompiledDocuments } from './compiled.js';",
      [service]: "import { execute as graphqlExecute } from 'graphql';",
    };
    expect(offenders(Object.keys(text), (f) => text[f]!)).toEqual([
      "src/cars/x.ts: imports graphql's execute",
      "src/cars/v.ts: imports graphql's execute",
      'src/cars/y.ts: imports graphql-jit',
      'src/graphql/w.ts: imports the compiled documents',
    ]);
  });
});
