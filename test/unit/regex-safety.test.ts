// No regular expression of the service can be made to backtrack for long (CONTRACT §13, §28): every literal and
// every RegExp built from text in src/ and rest-facade/ is checked by recheck, the ReDoS checker, which finds
// patterns whose matching time grows faster than the input (the float and e-mail patterns once took seconds).
import { check } from 'recheck';
import { describe, expect, it } from 'vitest';
import { INTERPOLATED, regexesIn, regexesUnder } from '../support/regex-sources.js';

const ROOT = new URL('../..', import.meta.url).pathname;

describe('the regular expressions of src/ and rest-facade/', () => {
  it('are all found, with TypeScript’s scanner telling a regular expression from a division', () => {
    const text = [
      'const half = (a + b) / 2 / c;',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: TypeScript source, its template included
      'const ok = /^a+b$/i.test(s) ? x / y : `${/c|d/g.source}`;',
      'if (n) return /[/]x/;',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: TypeScript source, its template included
      'const built = new RegExp(`^/(api|json)/${NAME}/?$`, "i");',
      'const plain = RegExp("e+f");',
      'const unknown = new RegExp(pattern);',
    ].join('\n');
    expect(regexesIn(text, 'sample.ts')).toEqual([
      { at: 'sample.ts:2', source: '^a+b$', flags: 'i' },
      { at: 'sample.ts:2', source: 'c|d', flags: 'g' },
      { at: 'sample.ts:3', source: '[/]x', flags: '' },
      { at: 'sample.ts:4', source: `^/(api|json)/${INTERPOLATED}/?$`, flags: 'i' },
      { at: 'sample.ts:5', source: 'e+f', flags: '' },
      {
        at: 'sample.ts:6',
        source: '',
        flags: '',
        unreadable: 'RegExp built from something other than text',
      },
    ]);
    const all = regexesUnder(ROOT, ['src', 'rest-facade']);
    expect(all.length).toBeGreaterThan(80);
    // A RegExp built from a variable cannot be checked: write it as a literal or from text.
    expect(all.filter((r) => r.unreadable)).toEqual([]);
  });

  it('are all safe from catastrophic backtracking (recheck)', { timeout: 600_000 }, async () => {
    const unsafe: string[] = [];
    for (const r of regexesUnder(ROOT, ['src', 'rest-facade'])) {
      // Sequentially: the machine is shared, and a timed-out analysis ("unknown") counts as unsafe.
      const d = await check(r.source, r.flags, { timeout: 60_000 });
      if (d.status !== 'safe')
        unsafe.push(
          `${r.at} /${r.source}/${r.flags}: ${d.status}${
            d.status === 'vulnerable'
              ? ` (${d.complexity.summary}, e.g. ${d.attack.pattern})`
              : d.status === 'unknown'
                ? ` (${d.error.kind})`
                : ''
          }`,
        );
    }
    expect(unsafe).toEqual([]);
  });
});
