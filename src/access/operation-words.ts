// An operation in people's words ("create cars", "read bookings"), for refusals that every surface shows: a REST
// client never sent `createCar`, so a message naming it would speak a language it does not use.

/** The verbs operations start with; any other operation is a read. */
const VERBS = new Set([
  'create',
  'update',
  'delete',
  'suspend',
  'reactivate',
  'list',
  'unlist',
  'submit',
  'verify',
  'reject',
  'request',
  'approve',
  'decline',
  'cancel',
  'use',
  'extend',
  'return',
  'complete',
  'lock',
  'unlock',
  'rotate',
  'test',
  'redeliver',
]);

const plural = (word: string): string =>
  word.endsWith('s')
    ? word
    : word.endsWith('y') && !/[aeiou]y$/.test(word)
      ? `${word.slice(0, -1)}ies`
      : `${word}s`;

/** `createCar` → `create cars`, `rotateClientApplicationSecret` → `rotate client application secrets`, `cars` → `read cars`. */
export function operationWords(operation: string): string {
  const words = operation
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(' ');
  const last = words.length - 1;
  words[last] = plural(words[last]!);
  return VERBS.has(words[0]!) ? words.join(' ') : `read ${words.join(' ')}`;
}
