// Code an instance may never need loads on first use (docs/decisions.md): the service's modules, loaded as
// `npm start` loads them, bring in neither the Redis client, nor certificate generation, nor the common-password
// list. A fresh Node process, so that nothing another test loaded counts.
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';

const script = `
import { createRequire } from 'node:module';
const loaded = (name) =>
  Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('/node_modules/' + name + '/'));
await import('./src/service.ts');
const names = ['ioredis', 'selfsigned', 'fxa-common-password-list'];
const before = Object.fromEntries(names.map((n) => [n, loaded(n)]));
// The check itself sees a package once something loads it.
await import('ioredis');
console.log(JSON.stringify({ before, after: loaded('ioredis') }));
`;

it('loads the Redis client, certificate generation and the password list only when they are used', () => {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: new URL('../..', import.meta.url),
    encoding: 'utf8',
  });
  expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual({
    before: { ioredis: false, selfsigned: false, 'fxa-common-password-list': false },
    after: true,
  });
});
