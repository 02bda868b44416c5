// A request's loader gives what was primed into it as a value (`known`), without a promise, and keeps DataLoader's
// contract otherwise (src/graphql/loaders.ts): `load` of a primed key resolves to it, a key already known keeps its
// value, a key not primed is batched as before, `clear` forgets both.
import { expect, it } from 'vitest';
import { ReadLoader } from '../../src/graphql/loaders.js';

const loader = (batches: string[][]) =>
  new ReadLoader<{ id: string }, string>(
    async (keys) => {
      batches.push(keys.map((k) => k.id));
      return keys.map((k) => `loaded ${k.id}`);
    },
    (k) => k.id,
  );

it('gives a primed value as it is, and load resolves to it without a batch', async () => {
  const batches: string[][] = [];
  const l = loader(batches);
  l.prime({ id: 'a' }, 'primed a');
  expect(l.known({ id: 'a' })).toBe('primed a');
  await expect(l.load({ id: 'a' })).resolves.toBe('primed a');
  expect(batches).toEqual([]);
});

it('loads what was not primed, in one batch, and keeps a loaded value over a later prime', async () => {
  const batches: string[][] = [];
  const l = loader(batches);
  const b = l.known({ id: 'b' });
  const c = l.known({ id: 'c' });
  expect(b).toBeInstanceOf(Promise);
  expect(await Promise.all([b, c])).toEqual(['loaded b', 'loaded c']);
  expect(batches).toEqual([['b', 'c']]);
  l.prime({ id: 'b' }, 'primed b');
  await expect(l.load({ id: 'b' })).resolves.toBe('loaded b');
  // A prime does not replace a value primed before it either; null is a value.
  l.prime({ id: 'd' }, null as unknown as string);
  l.prime({ id: 'd' }, 'second');
  expect(l.known({ id: 'd' })).toBeNull();
});

it('forgets a cleared key, primed or loaded, and everything at clearAll', async () => {
  const batches: string[][] = [];
  const l = loader(batches);
  l.prime({ id: 'a' }, 'primed a');
  l.clear({ id: 'a' });
  await expect(l.known({ id: 'a' })).resolves.toBe('loaded a');
  l.prime({ id: 'e' }, 'primed e');
  l.clearAll();
  await expect(l.known({ id: 'e' })).resolves.toBe('loaded e');
  expect(batches).toEqual([['a'], ['e']]);
});

it('primes an Error or a promise as DataLoader does: through load', async () => {
  const l = loader([]);
  l.prime({ id: 'x' }, new Error('gone'));
  await expect(l.known({ id: 'x' })).rejects.toThrow('gone');
  l.prime({ id: 'y' }, Promise.resolve('later'));
  await expect(l.known({ id: 'y' })).resolves.toBe('later');
});
