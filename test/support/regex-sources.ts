// Every regular expression written in the service's source: each literal and each `RegExp(...)` built from
// text, found with TypeScript's own scanner (test/unit/regex-safety.test.ts checks each one for ReDoS).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SyntaxKind } from 'typescript/unstable/ast';
import { createScanner } from 'typescript/unstable/ast/scanner';

export interface FoundRegex {
  /** `path:line`, relative to the folder searched from. */
  at: string;
  source: string;
  flags: string;
  /** Why the expression could not be read (a `RegExp` built from a variable): it cannot be checked. */
  unreadable?: string;
}

/** Text a `${…}` inside a `RegExp` template stands for: those interpolate names (letters), never patterns. */
export const INTERPOLATED = 'Name';

/** Keywords after which a `/` opens a regular expression rather than dividing. */
const EXPRESSION_KEYWORDS: ReadonlySet<SyntaxKind> = new Set([
  SyntaxKind.ReturnKeyword,
  SyntaxKind.TypeOfKeyword,
  SyntaxKind.CaseKeyword,
  SyntaxKind.DoKeyword,
  SyntaxKind.ElseKeyword,
  SyntaxKind.InKeyword,
  SyntaxKind.OfKeyword,
  SyntaxKind.NewKeyword,
  SyntaxKind.DeleteKeyword,
  SyntaxKind.VoidKeyword,
  SyntaxKind.ThrowKeyword,
  SyntaxKind.InstanceOfKeyword,
  SyntaxKind.YieldKeyword,
  SyntaxKind.AwaitKeyword,
]);

/** Punctuation after which a `/` divides: the end of an operand. */
const OPERAND_ENDS: ReadonlySet<SyntaxKind> = new Set([
  SyntaxKind.CloseParenToken,
  SyntaxKind.CloseBracketToken,
  SyntaxKind.CloseBraceToken,
  SyntaxKind.PlusPlusToken,
  SyntaxKind.MinusMinusToken,
]);

const isPunctuation = (k: SyntaxKind) => k >= SyntaxKind.FirstPunctuation && k <= SyntaxKind.LastPunctuation;

interface Token {
  kind: SyntaxKind;
  text: string;
  value: string;
  line: number;
}

/** The file's tokens, with regular expressions and template parts scanned as such. */
export function tokens(text: string): Token[] {
  const scanner = createScanner(true, 0, text);
  const out: Token[] = [];
  // For each open `{` or `${`: whether it opened a template substitution (its `}` continues the template).
  const braces: boolean[] = [];
  let prev: SyntaxKind | undefined;
  for (let kind = scanner.scan(); kind !== SyntaxKind.EndOfFile; kind = scanner.scan()) {
    if (kind === SyntaxKind.SlashToken || kind === SyntaxKind.SlashEqualsToken) {
      const regexAllowed =
        prev === undefined ||
        EXPRESSION_KEYWORDS.has(prev) ||
        (isPunctuation(prev) && !OPERAND_ENDS.has(prev)) ||
        prev === SyntaxKind.TemplateHead ||
        prev === SyntaxKind.TemplateMiddle;
      if (regexAllowed) kind = scanner.reScanSlashToken();
    } else if (kind === SyntaxKind.OpenBraceToken) braces.push(false);
    else if (kind === SyntaxKind.TemplateHead) braces.push(true);
    else if (kind === SyntaxKind.CloseBraceToken && braces.pop()) {
      kind = scanner.reScanTemplateToken(false);
      if (kind === SyntaxKind.TemplateMiddle) braces.push(true);
    }
    const line = text.slice(0, scanner.getTokenStart()).split('\n').length;
    out.push({ kind, text: scanner.getTokenText(), value: scanner.getTokenValue(), line });
    prev = kind;
  }
  return out;
}

/** The regular expressions of one file's text. */
export function regexesIn(text: string, file: string): FoundRegex[] {
  const all = tokens(text);
  const found: FoundRegex[] = [];
  for (let i = 0; i < all.length; i++) {
    const t = all[i]!;
    const at = `${file}:${t.line}`;
    if (t.kind === SyntaxKind.RegularExpressionLiteral) {
      const end = t.text.lastIndexOf('/');
      found.push({ at, source: t.text.slice(1, end), flags: t.text.slice(end + 1) });
      continue;
    }
    if (
      t.kind !== SyntaxKind.Identifier ||
      t.text !== 'RegExp' ||
      all[i + 1]?.kind !== SyntaxKind.OpenParenToken
    )
      continue;
    // RegExp(<text>[, <flags>]): the pattern is a string or a template whose substitutions are names.
    let j = i + 2;
    let source: string | undefined;
    const first = all[j];
    if (
      first?.kind === SyntaxKind.StringLiteral ||
      first?.kind === SyntaxKind.NoSubstitutionTemplateLiteral
    ) {
      source = first.value;
      j += 1;
    } else if (first?.kind === SyntaxKind.TemplateHead) {
      source = first.value;
      let depth = 0;
      for (j += 1; j < all.length; j++) {
        const k = all[j]!.kind;
        if (depth === 0 && (k === SyntaxKind.TemplateMiddle || k === SyntaxKind.TemplateTail)) {
          source += INTERPOLATED + all[j]!.value;
          if (k === SyntaxKind.TemplateTail) break;
        } else if (k === SyntaxKind.TemplateHead) depth += 1;
        else if (k === SyntaxKind.TemplateTail) depth -= 1;
      }
      j += 1;
    }
    if (source === undefined) {
      found.push({ at, source: '', flags: '', unreadable: 'RegExp built from something other than text' });
      continue;
    }
    let flags = '';
    if (all[j]?.kind === SyntaxKind.CommaToken && all[j + 1]?.kind === SyntaxKind.StringLiteral)
      flags = all[j + 1]!.value;
    found.push({ at, source, flags });
  }
  return found;
}

/** Every regular expression in the TypeScript and JavaScript files under `dirs` (relative to `root`). */
export function regexesUnder(root: string, dirs: readonly string[]): FoundRegex[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (/\.(ts|js|mjs)$/.test(e.name)) files.push(path);
    }
  };
  for (const d of dirs) walk(join(root, d));
  return files.flatMap((f) => regexesIn(readFileSync(f, 'utf8'), relative(root, f)));
}
