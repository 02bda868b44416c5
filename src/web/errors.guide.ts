// The Errors guide of /docs: every code of the error table (src/shared/errors.ts) with its status and what to do,
// each under its own anchor, which every error answer links to as `Meta.Help` (CONTRACT §27).
import { helpAnchor, type ResponseCode, statusOf } from '../shared/errors.js';

/** What each code means and what a client does about it; `satisfies` makes a new code in the table break the build
 * here until it is explained. */
export const errorAdvice = {
  NotEmpty: 'A required field is missing or empty. `Errors[].FieldName` names it: send a value.',
  InvalidFormat:
    'A value is not in the expected form (a date that is not ISO 8601, an id that is not a UUID, a body that is not ' +
    'JSON). `Errors[]` names each field and says what form it needs.',
  InvalidValue:
    'A value is well-formed but not accepted (an unknown event name, a URL the service may not call). Where the ' +
    'values are a closed list, `Errors[].Meta.Allowed` lists them.',
  OutOfRange:
    'A number or date is outside its range; the message gives the bounds. Send a value within them.',
  TooLong: 'A text is longer than its limit; the message gives it. Shorten it.',
  TooShort: 'A text is shorter than its minimum (a password, a name); the message gives it.',
  RuleViolation:
    'The input is valid but a business rule refuses it; `Meta.Rule` says which (`BorrowerNotVerified`, ' +
    '`CarNotBookable`, `StartTooSoon`, `DurationOutOfRange`, `DecisionTooLate`, `OutsideUseWindow`). Change the ' +
    'request (other times) or what the rule looks at first (get the borrower verified, list the car).',
  Unauthorized:
    'No token, or a token that is not valid (expired after its lifetime, revoked, mistyped). `WWW-Authenticate` says ' +
    'which (`error="invalid_token"` when one was sent). Ask for a new token (see Authentication) and send it as ' +
    '`Authorization: Bearer …`.',
  Forbidden:
    'The token is good but may not do this. A missing scope answers `WWW-Authenticate: … error="insufficient_scope"` ' +
    'and `Meta.RequiredScopes`: ask for a token with that scope (the application must be allowed it). Otherwise the ' +
    'caller is the wrong party (only the owner approves a booking, only ops manage applications).',
  HttpsRequired:
    'The request came over plain HTTP. Use the `https://` address: the service does not redirect, since a token ' +
    'sent in clear is already exposed; fix the address in the client.',
  CarShareSuspended:
    'The platform has suspended this car share: every request to its address is refused (OAuth endpoints answer ' +
    '`access_denied`, open WebSocket connections close with 4403). Nothing is lost: tokens, secrets and webhook ' +
    'deliveries are kept and work again once it is reactivated. Ask the car share’s operators.',
  NotFound:
    'No such route or id, or a resource the caller may not see (answered the same, on purpose, so ids cannot be ' +
    'probed). Check the path and the id, and that the token is the right user’s. `Meta.Reason: UnknownHost`: no ' +
    'car share is at the address the request was sent to; check the host name.',
  MethodNotAllowed:
    'The path exists but not with this method; the `Allow` header and `Meta.Allowed` list those it takes.',
  UnsupportedFormat:
    'The `format` parameter names a format the service does not write. Use `json`, `xml`, `csv`, `jsv` or `html` ' +
    '(`Meta.Supported`), or leave it out and use `Accept`.',
  InvalidStateTransition:
    'The resource is in a state where this action is not possible (approving a booking that was cancelled); ' +
    '`Meta.State` is its current state. Read it again and follow the state table of the API reference.',
  CarUnavailable:
    'The car is already booked or unavailable for part of that period; `Meta.ConflictStartDateUtc` and ' +
    '`Meta.ConflictEndDateUtc` give the clash. Pick other times or another car (`bookablefromutc`/`bookabletoutc` ' +
    'on `GET /api/cars` find free ones).',
  AlreadyExists:
    'The thing already exists (a username taken, the same webhook subscription twice, a second feedback). Read the ' +
    'existing one instead of creating it again.',
  Conflict:
    'The change clashes with the resource’s current situation (locking a car someone else is using); ' +
    '`Meta.Reason` says what. Retry once it has changed.',
  PayloadTooLarge: 'The body is over 1 MiB. Send less at once.',
  UnsupportedMediaType: 'The body is neither JSON nor a form. Send `Content-Type: application/json`.',
  TooManyRequests:
    'The caller used up its requests for this one-minute window. Wait `Retry-After` seconds; the `RateLimit-*` ' +
    'headers on every answer show how many remain, so a client can slow down before it gets here. ' +
    '`Meta.Scope: CarShare`: the car share as a whole received too many requests this minute, whoever sent them.',
  RequestHeaderFieldsTooLarge:
    'The request line and headers together are over 16 KiB (usually a very long query string or cookie). Ask ' +
    'for less at once (fewer `filter` or `embed` values, shorter lists of ids) and send fewer or smaller cookies.',
  QueryTooComplex:
    'A GraphQL document is deeper or costlier than the limits; the message says which and by how much. Ask for ' +
    'fewer levels or fields, and page through lists (`limit`, `offset`).',
  ServiceUnavailable:
    'The service could not start the request’s work within 5 s (it is overloaded); nothing was done. Retry after ' +
    '`Retry-After` seconds.',
  InternalServerError:
    'A fault on the service’s side, not in the request. Retry later; if it persists, quote `Meta.RequestId` (also ' +
    'the `Request-Id` header) to the operators: it finds the cause in their logs.',
} as const satisfies Record<ResponseCode, string>;

/** The codes in the table's order: the statuses as CONTRACT §10 lists them. */
const codes = Object.keys(statusOf) as ResponseCode[];

export function errorsGuide(limits: {
  perMinute: number;
  anonymousPerMinute: number;
  authPerMinute: number;
  carSharePerMinute?: number | undefined;
}) {
  const ceiling = limits.carSharePerMinute
    ? ` All callers together may send ${limits.carSharePerMinute} requests a minute to this car share; past that, ` +
      '`429` with `Meta.Scope: CarShare`.'
    : '';
  const summary = codes.map((c) => `| ${statusOf[c]} | \`${c}\` |`).join('\n');
  const sections = codes
    .map((c) => `### ${c}\n\n<a id="${helpAnchor(c)}"></a>**${statusOf[c]}.** ${errorAdvice[c]}\n`)
    .join('\n');
  return `## Errors

Every error answers \`{"ResponseStatus":{"ErrorCode","Message","Errors":[{"ErrorCode","FieldName","Message"}],"Meta"}}\`
(in the format asked for). \`Errors\` is always there, one entry per field for invalid input, and
\`Meta.Help\` links to the section below that explains \`ErrorCode\`. Every answer carries \`Request-Id\`: quote it
when asking about one. Besides the errors listed with each operation, any request may answer \`406\`, \`429\`,
\`500\` and \`503\`. OAuth endpoints answer OAuth's own errors (\`{"error":"invalid_client",…}\`).

Rate limits, per one-minute window: ${limits.perMinute} requests per token subject, ${limits.anonymousPerMinute} per
client IP without a token, and ${limits.authPerMinute} sign-in, sign-up and token requests per client IP.${ceiling} Every
response carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`; a \`429\` carries \`Retry-After\`
(seconds). Limits count actions: each mutation field of a GraphQL document counts one request (sign-ups in the
sign-up class), each graphql-ws operation one, and a graphql-ws connection holds at most 100 active operations.

| Status | ErrorCode |
|---|---|
${summary}

${sections}`;
}
