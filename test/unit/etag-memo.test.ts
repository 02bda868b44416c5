// The REST cache's memo of the ETags an instance read from Redis (rest-facade/etag-memo.ts): trusted only while no
// tag it was read under has been bumped, here or elsewhere, since its read began.
import { describe, expect, it } from 'vitest';
import { etagMemo } from '../../rest-facade/etag-memo.js';

const NOW = 1_000_000;

describe('etag memo', () => {
  it('answers what was read until one of its tags is bumped in its car share', () => {
    const memo = etagMemo(() => true);
    memo.put('cs1', 'k', memo.reading('cs1', ['Car', 'User']), '"e1"', NOW + 60_000);
    expect(memo.get('cs1', 'k', NOW)).toBe('"e1"');
    memo.bumped('cs2', ['Car']);
    memo.bumped('cs1', ['Booking']);
    expect(memo.get('cs1', 'k', NOW)).toBe('"e1"');
    memo.bumped('cs1', ['User']);
    expect(memo.get('cs1', 'k', NOW)).toBeUndefined();
  });

  it('keeps nothing read before a bump or a clear that came while the read was out', () => {
    const memo = etagMemo(() => true);
    const bumpedMeanwhile = memo.reading('cs1', ['Car']);
    memo.bumped('cs1', ['Car']);
    memo.put('cs1', 'k', bumpedMeanwhile, '"old"', NOW + 60_000);
    expect(memo.get('cs1', 'k', NOW)).toBeUndefined();
    const clearedMeanwhile = memo.reading('cs1', ['Car']);
    memo.clear();
    memo.put('cs1', 'k', clearedMeanwhile, '"old"', NOW + 60_000);
    expect(memo.get('cs1', 'k', NOW)).toBeUndefined();
  });

  it('answers nothing past the entry’s expiry, nor while bumps elsewhere are not heard', () => {
    let hearing = true;
    const memo = etagMemo(() => hearing);
    memo.put('cs1', 'k', memo.reading('cs1', ['Car']), '"e1"', NOW + 1000);
    expect(memo.get('cs1', 'k', NOW + 1000)).toBeUndefined();
    memo.put('cs1', 'k', memo.reading('cs1', ['Car']), '"e1"', NOW + 1000);
    hearing = false;
    expect(memo.get('cs1', 'k', NOW)).toBeUndefined();
    memo.put('cs1', 'k2', memo.reading('cs1', ['Car']), '"e2"', NOW + 1000);
    hearing = true;
    expect(memo.get('cs1', 'k2', NOW)).toBeUndefined();
  });

  it('stays bounded: a full table of epochs forgets every memo with them', () => {
    const memo = etagMemo(() => true, { max: 2, maxEpochs: 3 });
    memo.put('cs1', 'a', memo.reading('cs1', ['Car']), '"a"', NOW + 60_000);
    memo.put('cs1', 'b', memo.reading('cs1', ['Car']), '"b"', NOW + 60_000);
    memo.put('cs1', 'c', memo.reading('cs1', ['Car']), '"c"', NOW + 60_000);
    // Two at most: the third emptied the table before it went in.
    expect(['a', 'b', 'c'].map((k) => memo.get('cs1', k, NOW))).toEqual([undefined, undefined, '"c"']);
    memo.put('cs1', 'd', memo.reading('cs1', ['User']), '"d"', NOW + 60_000);
    memo.bumped('cs9', ['A', 'B']);
    memo.bumped('cs9', ['C']);
    expect(memo.get('cs1', 'd', NOW)).toBe('"d"');
    // A fourth epoch: forgotten epochs would read 0 again, so every memo goes with them.
    memo.bumped('cs9', ['D']);
    expect(memo.get('cs1', 'd', NOW)).toBeUndefined();
  });
});
