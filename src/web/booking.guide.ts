// The "Your first booking" guide of /docs: the calls from a new car to an approved booking, in the order a
// newcomer makes them (two users, the verifications the rules ask for, listing, requesting, approving).

/** The bodies the guide sends, stated once so a test can make the same calls (test/rest-facade/first-booking). */
export const walkthrough = {
  owner: {
    Username: 'owner@example.com',
    Password: 'a long passphrase 1',
    FirstName: 'Olive',
    LastName: 'Owner',
  },
  borrower: {
    Username: 'borrower@example.com',
    Password: 'a long passphrase 2',
    FirstName: 'Ben',
    LastName: 'Borrower',
    PhoneNumber: '+14155550123',
  },
  userScopes: 'openid account:read account:write cars:read cars:write bookings:read bookings:write',
  car: {
    Make: 'Ford',
    Model: 'Fiesta',
    Year: 2019,
    Transmission: 'Manual',
    Seats: 5,
    LicensePlate: { Jurisdiction: 'NZ', Number: 'ABC123' },
    HomeLocation: { Address: '1 Queen St, Auckland', Latitude: -36.85, Longitude: 174.76 },
    HourlyRate: { Amount: '9.90', Currency: 'NZD' },
  },
  evidence: {
    LicensePlate: { Jurisdiction: 'NZ', Number: 'ABC123' },
    RoadWorthiness: { CertificateNumber: 'WOF-1234', ExpiresDateUtc: '2030-06-30T00:00:00Z' },
    Email: { EmailAddress: 'borrower@example.com' },
    PhoneNumber: { PhoneNumber: '+14155550123' },
    DriversLicense: { Number: 'DL123456', Jurisdiction: 'NZ', ExpiresDateUtc: '2030-06-30T00:00:00Z' },
  },
  /** Tomorrow (UTC) from 09:00 to 17:00. */
  period: { startHourUtc: 9, endHourUtc: 17 },
} as const;

export function bookingGuide(o: { base: string; curl: string; carShareOption?: string }): string {
  const { base, curl } = o;
  const cs = o.carShareOption ?? '';
  const as = (who: string) => `${curl} -H "Authorization: Bearer $${who}"`;
  const json = "-H 'Content-Type: application/json'";
  const w = walkthrough;
  const body = (v: unknown) => `'${JSON.stringify(v)}'`;
  const submit = (kind: keyof typeof w.evidence) => body({ Evidence: w.evidence[kind] });
  const hh = (hour: number) => String(hour).padStart(2, '0');
  return `## Your first booking

**The shortcut:** \`npm run admin -- seed-demo${cs}\` fills the car share with verified owners, listed cars, a verified
borrower and bookings in several states, and prints their usernames and passwords and a client application. Then
register an application (step 1), sign its borrower in (step 2) and go on from step 5 with one of its cars.

The long way shows every rule a booking meets. A booking needs a car that is **bookable** (listed, its
\`LicensePlate\` and \`RoadWorthiness\` verifications verified, its owner's account active) and a **verified
borrower** (\`Email\`, \`PhoneNumber\` and \`DriversLicense\` verified). Owners and borrowers act through user tokens;
verifications are decided by an operator or a client application allowed \`verifications:write\` (an identity
checking provider is such an application).

1. **Two users and an application.** Create an owner and a borrower (no token needed):

   \`\`\`sh
   ${curl} ${json} -d ${body(w.owner)} ${base}/api/useraccounts
   ${curl} ${json} -d ${body(w.borrower)} ${base}/api/useraccounts
   \`\`\`

   Register an application that users sign in to, and that decides verifications as itself:

   \`\`\`sh
   npm run --silent admin -- create-client${cs} --name "First booking" --grant authorization_code --grant client_credentials \\
     --redirect-uri http://127.0.0.1:8765/callback \\
     --scopes "${w.userScopes} verifications:write"
   \`\`\`

2. **Tokens.** A user token for each (\`npm run user-token\` signs in and consents as a browser would; see
   Authentication), and the application's own token:

   \`\`\`sh
   npm run --silent user-token -- --client-id "$CLIENT_ID" --client-secret="$CLIENT_SECRET" \\
     --redirect-uri http://127.0.0.1:8765/callback --username ${w.owner.Username} --password '${w.owner.Password}' \\
     --scope "${w.userScopes}"
   ${curl} -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials -d scope=verifications:write ${base}/api/oauth/token
   \`\`\`

   Set \`OWNER_TOKEN\`, \`BORROWER_TOKEN\` (the same \`user-token\` command with the borrower's username and password)
   and \`APP_TOKEN\` to the \`access_token\` of each answer.

3. **The car.** The owner registers it (it starts as \`Draft\`, with its verifications \`Unverified\`), submits the
   evidence of each verification, and lists it:

   \`\`\`sh
   ${as('OWNER_TOKEN')} ${json} -d ${body(w.car)} ${base}/api/cars
   ${as('OWNER_TOKEN')} "${base}/api/verifications?subjectid=$CAR_ID"
   ${as('OWNER_TOKEN')} ${json} -X PUT -d ${submit('LicensePlate')} ${base}/api/verifications/$PLATE_ID/submit
   ${as('OWNER_TOKEN')} ${json} -X PUT -d ${submit('RoadWorthiness')} ${base}/api/verifications/$ROADWORTHINESS_ID/submit
   ${as('OWNER_TOKEN')} -X PUT ${base}/api/cars/$CAR_ID/list
   \`\`\`

   (\`CAR_ID\` is the \`Car.Id\` of the first answer; \`PLATE_ID\` and \`ROADWORTHINESS_ID\` the \`Id\`s of the
   \`LicensePlate\` and \`RoadWorthiness\` verifications the second lists.)

4. **Verifications.** The borrower submits theirs the same way (\`GET /api/verifications?subjectid=<their
   account id>\`, then \`Email\` \`${JSON.stringify(w.evidence.Email)}\`, \`PhoneNumber\`
   \`${JSON.stringify(w.evidence.PhoneNumber)}\`, \`DriversLicense\` \`${JSON.stringify(w.evidence.DriversLicense)}\`).
   The application decides each of the five:

   \`\`\`sh
   ${as('APP_TOKEN')} -X PUT ${base}/api/verifications/$VERIFICATION_ID/verify
   \`\`\`

   Each decision raises a \`verification_update\` event. The car is now bookable and the borrower verified
   (\`IsVerifiedBorrower\` on their account).

5. **The request.** The borrower asks for a period at least 15 minutes ahead, within the car's minimum and
   maximum duration (60 minutes to 14 days unless the owner set others):

   \`\`\`sh
   ${as('BORROWER_TOKEN')} ${json} -d '{"StartDateUtc":"'$(date -u -d '+1 day' +%Y-%m-%dT${hh(w.period.startHourUtc)}:00:00Z)'","EndDateUtc":"'$(date -u -d '+1 day' +%Y-%m-%dT${hh(w.period.endHourUtc)}:00:00Z)'","Message":"Weekend trip"}' ${base}/api/cars/$CAR_ID/bookings
   \`\`\`

   The booking is \`Pending\` (or \`Approved\` at once when the car has \`AutoApprove\`). Its \`Reference\` is the
   short code people quote.

6. **The approval.** The owner approves it (until 15 minutes before the start):

   \`\`\`sh
   ${as('OWNER_TOKEN')} -X PUT ${base}/api/bookings/$BOOKING_ID/approve
   \`\`\`

   The booking is \`Approved\` and a \`carbooking_approve\` event goes to the webhooks subscribed to it. From here the
   borrower \`use\`s it (from 15 minutes before the start), may \`extend\` it, \`return\`s it, and the owner
   \`complete\`s it; each step is a \`PUT /api/bookings/{Id}/<action>\`.

What can go wrong on the way, and what the error answers mean, is in Errors below: \`RuleViolation\` with
\`Meta.Rule\` \`CarNotBookable\` or \`BorrowerNotVerified\` means a step above was skipped; \`CarUnavailable\` that
another booking holds part of the period.
`;
}
