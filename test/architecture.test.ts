// The dependency rule of DESIGN.md, checked on the import statements themselves.
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

const edges = [...files(join(root, 'src')), ...files(join(root, 'rest-facade'))].flatMap((f) =>
  importsOf(f).map((to) => ({ from: relative(root, f), to })),
);
const folderOf = (p: string): string => p.split('/').slice(0, 2).join('/');

/**
 * Subdomains in dependency order: each may import only those before it. Infrastructure (shared, db, graphql,
 * events, auth's actor and permission table) is below them all.
 */
const subdomains = [
  'src/ratings',
  'src/verifications',
  'src/accounts',
  'src/cars',
  'src/feedback',
  'src/bookings',
  'src/clientapps',
  'src/webhooks',
  'src/reports',
  'src/dashboard',
];

describe('the dependency rule', () => {
  it('sees the code it checks', () => {
    expect(edges.length).toBeGreaterThan(50);
    expect(
      edges.some((e) => e.from.startsWith('src/accounts/') && e.to.startsWith('src/verifications/')),
    ).toBe(true);
  });

  it('rest-facade imports nothing from src/', () => {
    expect(edges.filter((e) => e.from.startsWith('rest-facade/') && e.to.startsWith('src/'))).toEqual([]);
  });

  it('src/shared (the kernel) imports nothing else from src/', () => {
    expect(edges.filter((e) => e.from.startsWith('src/shared/') && !e.to.startsWith('src/shared/'))).toEqual(
      [],
    );
  });

  it('only the composition root reaches into rest-facade/', () => {
    expect(
      edges.filter(
        (e) =>
          e.to.startsWith('rest-facade/') && !e.from.startsWith('rest-facade/') && e.from !== 'src/app.ts',
      ),
    ).toEqual([]);
  });

  it('a subdomain imports only subdomains before it (cars never import bookings)', () => {
    const bad = edges.filter((e) => {
      const from = subdomains.indexOf(folderOf(e.from));
      const to = subdomains.indexOf(folderOf(e.to));
      return from >= 0 && to >= 0 && to > from;
    });
    expect(bad).toEqual([]);
  });

  it('infrastructure does not import subdomains (except the composition files)', () => {
    const infra = ['src/shared', 'src/db', 'src/graphql', 'src/events', 'src/audit'];
    const bad = edges.filter(
      (e) =>
        infra.includes(folderOf(e.from)) &&
        subdomains.includes(folderOf(e.to)) &&
        !e.from.startsWith('src/db/migrations'),
    );
    expect(bad).toEqual([]);
  });
});
