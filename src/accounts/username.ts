// A username is an e-mail address naming one person: one account however it is written (`ａｄａ@example.com` is
// `ada@example.com`), and none that only looks like another (invisible characters, letters of mixed scripts).
import { fieldLabel } from '../shared/errors.js';
import type { Check } from '../shared/validation.js';

export const MIN_USERNAME = 3;
export const MAX_USERNAME = 254;

/** NFKC folds compatibility forms (fullwidth letters, ligatures, the ideographic space) into their plain ones. */
export const normaliseUsername = (u: string): string => u.normalize('NFKC').trim().toLowerCase();

/**
 * How usernames were stored before NFKC: still looked up at sign-in, so an account created then keeps working
 * whatever it was written in.
 */
export const legacyUsername = (u: string): string => u.trim().toLowerCase();

/** Controls, format characters (zero-width space and joiners, bidi marks), and whatever renders as nothing. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;

/** The scripts a username's letters are told apart by; letters of none of them count as one script, `Other`. */
const SCRIPTS = {
  Latin: /\p{Script=Latin}/u,
  Cyrillic: /\p{Script=Cyrillic}/u,
  Greek: /\p{Script=Greek}/u,
  Armenian: /\p{Script=Armenian}/u,
  Georgian: /\p{Script=Georgian}/u,
  Hebrew: /\p{Script=Hebrew}/u,
  Arabic: /\p{Script=Arabic}/u,
  Devanagari: /\p{Script=Devanagari}/u,
  Thai: /\p{Script=Thai}/u,
  Cherokee: /\p{Script=Cherokee}/u,
  Han: /\p{Script=Han}/u,
  Hiragana: /\p{Script=Hiragana}/u,
  Katakana: /\p{Script=Katakana}/u,
  Hangul: /\p{Script=Hangul}/u,
  Bopomofo: /\p{Script=Bopomofo}/u,
} as const;
type Script = keyof typeof SCRIPTS | 'Other';

/**
 * Scripts written together (UTS #39's "highly restrictive" sets: Japanese, Korean, Chinese with Bopomofo, each with
 * Latin, whose letters look like none of theirs): not a mix.
 */
const WRITTEN_TOGETHER: readonly ReadonlySet<Script>[] = [
  new Set<Script>(['Latin', 'Han', 'Hiragana', 'Katakana']),
  new Set<Script>(['Latin', 'Han', 'Hangul']),
  new Set<Script>(['Latin', 'Han', 'Bopomofo']),
];

const LETTER = /\p{L}/u;

/** The scripts of the username's letters (digits, `@`, `.` and other common characters belong to none). */
function scriptsOf(u: string): Set<Script> {
  const found = new Set<Script>();
  for (const ch of u) {
    if (!LETTER.test(ch)) continue;
    const script = (Object.keys(SCRIPTS) as (keyof typeof SCRIPTS)[]).find((s) => SCRIPTS[s].test(ch));
    found.add(script ?? 'Other');
  }
  return found;
}

/**
 * Checks a username as the client sent it and returns it normalised. Its length first (every later check reads
 * each character), then what could pass for another account (400 `InvalidValue` naming the field), then the
 * e-mail shape of the normalised text (fullwidth `＠` is `@`).
 */
export function checkUsername(check: Check, field: string, raw: string): string | undefined {
  check.length(field, raw, MIN_USERNAME, MAX_USERNAME);
  if (check.failed(field)) return undefined;
  const u = normaliseUsername(raw);
  check.length(field, u, MIN_USERNAME, MAX_USERNAME);
  if (check.failed(field)) return undefined;
  if (INVISIBLE.test(raw.trim()) || INVISIBLE.test(u)) {
    check.add('InvalidValue', field, `${fieldLabel(field)} must not contain invisible or control characters`);
    return undefined;
  }
  const scripts = scriptsOf(u);
  if (scripts.size > 1 && !WRITTEN_TOGETHER.some((set) => [...scripts].every((s) => set.has(s)))) {
    check.add(
      'InvalidValue',
      field,
      `${fieldLabel(field)} must not mix letters of different scripts (${[...scripts].join(', ')})`,
    );
    return undefined;
  }
  check.email(field, u);
  return check.failed(field) ? undefined : u;
}
