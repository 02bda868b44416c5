// How deeply a document's text nests, read before it is parsed (CONTRACT §13, §28). graphql-js parses recursively
// with no bound of its own, and so do the checks that walk the parsed document (expansion.ts, introspection.ts):
// a 64 KiB document nesting a thousand selection sets exhausted the stack in one or another of them depending on
// how warm the process was, so the same document was refused for one reason or another. Counting brackets in one
// pass refuses it the same way every time, before any recursion.

/** Brackets (`{`, `(`, `[`) a document may nest; GraphiQL's introspection query nests 13. */
export const MAX_NESTING = 128;

/** The deepest bracket nesting of a GraphQL document's text, strings and comments skipped; linear in its length. */
export function nestingOf(text: string): number {
  let depth = 0;
  let deepest = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 35) {
      // A comment, to the end of its line.
      while (i < n && text.charCodeAt(i) !== 10 && text.charCodeAt(i) !== 13) i += 1;
    } else if (c === 34 && text.startsWith('"""', i)) {
      // A block string: to the next `"""` that is not escaped (`\"""`).
      i += 3;
      while (i < n && !text.startsWith('"""', i)) i += text.startsWith('\\"""', i) ? 4 : 1;
      i += 3;
    } else if (c === 34) {
      // A string: to its closing quote (an escape skips the character after the backslash) or the line's end.
      i += 1;
      while (i < n && text.charCodeAt(i) !== 34 && text.charCodeAt(i) !== 10)
        i += text.charCodeAt(i) === 92 ? 2 : 1;
      i += 1;
    } else {
      if (c === 123 || c === 40 || c === 91) {
        // { ( [
        depth += 1;
        if (depth > deepest) deepest = depth;
      } else if ((c === 125 || c === 41 || c === 93) && depth > 0) depth -= 1; // } ) ]
      i += 1;
    }
  }
  return deepest;
}
