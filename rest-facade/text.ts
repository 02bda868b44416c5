// Reading text without patterns that backtrack (CONTRACT §28): each pattern here reads its input once, and long
// input is refused by its length before any pattern sees it.

/** The most characters a number may be written with: more digits than a double holds, and then some. */
export const MAX_NUMBER_TEXT = 100;

/**
 * A decimal number, as `Number` would read it, with nothing else around it. Each part has one way to match
 * (`\d+(\.\d*)?`, not `\d+\.?\d*`, which splits a run of digits in as many ways as it is long).
 */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The number the (trimmed) text writes; NaN when it is no number or longer than MAX_NUMBER_TEXT. */
export function numberFromText(text: string): number {
  const s = text.trim();
  if (s.length > MAX_NUMBER_TEXT || !DECIMAL.test(s)) return Number.NaN;
  return Number(s);
}

/** `s` without the `ch` characters it ends with; `/\/+$/` would rescan a long run once per position. */
export function trimEnd(s: string, ch: string): string {
  let end = s.length;
  while (end > 0 && s[end - 1] === ch) end -= 1;
  return s.slice(0, end);
}
