// Cutting a run of one character off the end of a text in one pass. A pattern such as `/\/+$/` is tried at every
// position of a long run and rescans the rest each time: quadratic in the run's length (CONTRACT §28).

/** `s` without the `ch` characters it ends with (`https://a.example//` → `https://a.example`). */
export function trimEnd(s: string, ch: string): string {
  let end = s.length;
  while (end > 0 && s[end - 1] === ch) end -= 1;
  return s.slice(0, end);
}
