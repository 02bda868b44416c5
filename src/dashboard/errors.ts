// What an operator reads when the API refuses something: one sentence per error code of CONTRACT §10, the
// API's own message, and each invalid field named by its label on the form.
import type { ErrorCode } from '../shared/errors.js';

export interface ApiError {
  code: string;
  message: string;
  field?: string | undefined;
  errors: { code: string; field: string; message: string }[];
  meta?: Record<string, unknown> | undefined;
}

export interface Problem {
  summary: string;
  fields: { field: string; label: string; message: string }[];
}

const leads = {
  NotEmpty: 'Some fields need your attention.',
  InvalidFormat: 'Some fields need your attention.',
  InvalidValue: 'Some fields need your attention.',
  OutOfRange: 'Some fields need your attention.',
  TooLong: 'Some fields need your attention.',
  TooShort: 'Some fields need your attention.',
  RuleViolation: 'A rule of the car share does not allow this.',
  Unauthorized: 'Your session has ended: sign in again.',
  Forbidden: 'You are not allowed to do this.',
  HttpsRequired: 'The service is only available over HTTPS.',
  NotFound: 'It was not found: it may have been deleted meanwhile. Reload the list.',
  MethodNotAllowed: 'The service does not offer this action.',
  UnsupportedFormat: 'The service could not answer in this format.',
  InvalidStateTransition: 'This cannot be done in its current state. Reload the page to see where it stands.',
  CarUnavailable: 'The car is not free for that period.',
  AlreadyExists: 'This already exists.',
  Conflict: 'This conflicts with the current state.',
  PayloadTooLarge: 'What you sent is too large.',
  UnsupportedMediaType: 'The service could not read what was sent.',
  TooManyRequests: 'Too many requests: wait a minute, then try again.',
  InternalServerError: 'Something went wrong on our side.',
} as const satisfies Record<ErrorCode, string>;

const isKnown = (code: string): code is ErrorCode => Object.hasOwn(leads, code);

/** `Name must be…` (the API names fields in PascalCase) under the label `Full name` reads `Full name must be…`. */
function underLabel(field: string, label: string, message: string): string {
  const last = field.split('.').pop() ?? field;
  for (const prefix of [`${field}: `, `${last}: `, `${field} `, `${last} `])
    if (message.toLowerCase().startsWith(prefix.toLowerCase()))
      return `${label}${prefix.endsWith(': ') ? ': ' : ' '}${message.slice(prefix.length)}`;
  return `${label}: ${message}`;
}

export function describeError(e: ApiError, labels: Readonly<Record<string, string>> = {}): Problem {
  const label = (f: string) => labels[f] ?? labels[f.replace(/^input\./, '')] ?? f;
  const listed =
    e.errors.length > 0 ? e.errors : e.field ? [{ code: e.code, field: e.field, message: e.message }] : [];
  const fields = listed.map((f) => ({
    field: f.field,
    label: label(f.field),
    message: underLabel(f.field, label(f.field), f.message),
  }));
  const lead = isKnown(e.code) ? leads[e.code] : 'The request could not be completed.';
  const requestId = e.meta?.requestId;
  if (e.code === 'InternalServerError')
    return {
      summary: `${lead} Quote the request id ${String(requestId ?? 'shown in the response')} to support.`,
      fields,
    };
  if (fields.length > 0) return { summary: lead, fields };
  const rule = e.code === 'RuleViolation' && e.meta?.rule ? ` (${String(e.meta.rule)})` : '';
  return { summary: `${lead} ${e.message}${rule}`.trim(), fields };
}
