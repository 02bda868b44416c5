// The Webhooks guide of /docs: events and their payloads (built by the same code as real deliveries, so the guide
// cannot drift from them), the headers, verifying a signature, retries, the delivery log and local testing.

import { buildPayload, type EventFields, type EventName, eventNames } from '../events/events.js';
import { serializeBody, withCarShare } from '../webhooks/fanout.js';

const at = new Date('2026-07-01T10:00:00.000Z');
const booking = {
  id: '5f0c2d4e-8a3b-4c1d-9e2f-0a1b2c3d4e5f',
  reference: 'K7M2Q9XA',
  carId: '0d8e6a52-3c4b-4f7e-8a9d-1b2c3d4e5f60',
  borrowerId: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  state: 'Approved',
  startDateUtc: new Date('2026-07-02T09:00:00.000Z'),
  endDateUtc: new Date('2026-07-02T17:00:00.000Z'),
};
const subject = { subjectType: 'UserAccount', subjectId: booking.borrowerId };

/** One example of each event's fields: a new event breaks the build here until the guide can show it. */
const samples = {
  useraccount_create: { id: booking.borrowerId, createdDateUtc: at },
  profile_update: { id: booking.borrowerId, userId: booking.borrowerId, changedFields: ['PhoneNumber'] },
  verification_update: { id: booking.id, ...subject, kind: 'DriversLicense', status: 'Verified' },
  feedback_update: { id: booking.id, carBookingId: booking.id, ...subject, rating: 5 },
  feedback_delete: { id: booking.id, carBookingId: booking.id, ...subject },
  carbooking_approve: booking,
  carbooking_cancel: { ...booking, state: 'Cancelled' },
  carbooking_use: { ...booking, state: 'InUse' },
  carbooking_extend: booking,
  carbooking_return: { ...booking, state: 'Returned' },
  carbooking_complete: { ...booking, state: 'Completed' },
} satisfies { [E in EventName]: EventFields[E] };

const example = <E extends EventName>(name: E) => buildPayload(name, samples[name], at);

/** An Id for the example when the guide is not a car share's own. */
const SAMPLE_CAR_SHARE = '6f1c2a4e-0b7d-4c1e-9a53-2d8e7f604b11';

export function webhooksGuide(o: { base: string; curl: string; carShareId?: string | undefined }): string {
  const rows = eventNames
    .map((name) => {
      const fields = Object.keys(example(name)).filter((k) => k !== 'Name' && k !== 'OccurredDateUtc');
      return `| \`${name}\` | ${fields.map((f) => `\`${f}\``).join(', ')} |`;
    })
    .join('\n');
  const body = serializeBody(
    withCarShare(example('carbooking_approve'), o.carShareId ?? SAMPLE_CAR_SHARE) as ReturnType<
      typeof example
    >,
  );
  return `## Webhooks

The service POSTs each event to the URLs subscribed to it, signed the [Standard Webhooks](https://www.standardwebhooks.com/)
way. Subscribe with a token allowed \`webhooks:write\` (ops and client applications receive every event of the car
share, a user only events about themselves, their cars and their bookings):

\`\`\`sh
${o.curl} -H "Authorization: Bearer $ACCESS_TOKEN" -H 'Content-Type: application/json' \\
  -d '{"Name":"Bookings to the CRM","Events":["carbooking_approve","carbooking_cancel"],"Config":{"Url":"https://crm.example.com/hooks/carshare"}}' \\
  ${o.base}/api/webhooks/subscriptions
\`\`\`

The answer (201) holds one subscription per event, each with its \`Secret\` (\`whsec_…\`), shown only here and by
\`PUT /api/webhooks/subscriptions/{Id}/rotate-secret\`. The URL must be https and reach a public address; for a
receiver on your own machine, see *Testing on your machine* below.

### Events and payloads

The body is flat PascalCase JSON; every payload has \`Name\` (the event), \`OccurredDateUtc\` and \`CarShareId\`
(the car share it happened in).

| Event | Fields besides Name, OccurredDateUtc and CarShareId |
|---|---|
${rows}
| \`webhook_test\` | \`SubscriptionId\` (sent by \`PUT /api/webhooks/subscriptions/{Id}/test\`) |

For example, \`carbooking_approve\`:

\`\`\`json
${body}
\`\`\`

GraphQL clients can have the same events pushed over \`graphql-ws\` instead:
\`subscription { events(names: ["carbooking_approve"]) { name occurredDateUtc payload } }\`, where \`payload\` is
exactly the webhook body.

### Headers

| Header | Value |
|---|---|
| \`Content-Type\` | \`application/json\` |
| \`User-Agent\` | \`Carshare-Webhooks/<version>\` |
| \`X-Webhook-Event\` | the event name |
| \`X-Webhook-Delivery\` | 32 lowercase hex, the same on every retry and redelivery: de-duplicate by it |
| \`X-Webhook-Subscription-Id\` | the subscription, so a receiver of several knows which secret signed |
| \`Request-Id\` | new for each attempt |
| \`webhook-id\` | = \`X-Webhook-Delivery\` |
| \`webhook-timestamp\` | unix seconds of this attempt |
| \`webhook-signature\` | \`v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">\`; two, space-separated, for 24 h after a secret rotation |

### Verifying a delivery

Check the signature over the raw body, before parsing it. With the \`standardwebhooks\` package (there are
libraries for most languages), in Node:

\`\`\`js
import { Webhook } from 'standardwebhooks';

const wh = new Webhook(process.env.CARSHARE_WEBHOOK_SECRET); // the whsec_… secret of the subscription

// rawBody: the request body as received (a string); headers: the request's headers.
const event = wh.verify(rawBody, headers); // throws when the signature or the timestamp is wrong
\`\`\`

The library also refuses a timestamp more than five minutes away, so a captured delivery cannot be replayed later.

### Retries

Any \`2xx\` within 15 s is a success. Redirects are not followed (a failure). \`410 Gone\` disables the subscription
(\`DisabledReason: Gone\`). Anything else (another status, a timeout, a connection or DNS error) is retried after
5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h (±20 %), so 10 attempts over about 3 days; \`Retry-After\`
on a \`429\` or \`503\` is honoured up to 24 h. Then the delivery is \`Failed\` and kept 30 days. A subscription whose
deliveries have only failed for 5 days is disabled (\`DisabledReason: Failing\`); \`PATCH\` it with
\`{"IsActive":true}\` once the receiver is fixed. Delivery is at least once and order is best effort.

### The delivery log and redelivery

- \`GET /api/webhooks/subscriptions/{Id}/deliveries\` (\`status\` narrows: \`Pending\`, \`Succeeded\`, \`Failed\`,
  \`Skipped\`, \`Cancelled\`): each delivery with its \`Payload\` and \`Attempts\` (when, status code, error, duration).
- \`GET /api/webhooks/deliveries/{Id}\`: one delivery, by its \`X-Webhook-Delivery\` id.
- \`PUT /api/webhooks/deliveries/{Id}/redeliver\`: one more attempt now, same id, fresh signature.
- \`PUT /api/webhooks/subscriptions/{Id}/test\`: sends a \`webhook_test\` event through the normal pipeline.

### Testing on your machine

A receiver on \`localhost\` cannot be subscribed (the service refuses private addresses). Instead, in the service's
folder, forward the car share's events to it as they happen:

\`\`\`sh
npm run webhooks -- listen --forward-to http://localhost:3000/hook [--events carbooking_approve,carbooking_cancel]
\`\`\`

Its first line prints the \`whsec_…\` secret it signs with (kept in the data folder, so it stays the same from one
run to the next); then one line per event with your receiver's answer. Each request is what a delivery looks like:
the same body and headers, signed with that secret. Without options it registers a short-lived client application
allowed \`webhooks:read\` and removes it when you stop it (Ctrl-C); \`--client-id\` and \`--client-secret\` use an
application of yours instead. (\`WEBHOOK_ALLOW_PRIVATE_TARGETS=true\` lets subscriptions reach private addresses
and plain http: for development and tests only.)
`;
}
