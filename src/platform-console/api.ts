import { type ApiError, describeError, type Problem } from '../dashboard/errors.js';
import type { CarShareUsage } from '../platform/car-shares.queries.js';

// The platform's GraphQL documents the console runs, and the shapes it reads back.
/** A car share's counts as GraphQL answers them (dates as ISO strings). */
export type Usage = Omit<CarShareUsage, 'id' | 'countedDateUtc'> & { countedDateUtc: string };

export interface Limits {
  callerPerMinute: number | null;
  anonymousPerMinute: number | null;
  authPerMinute: number | null;
  carSharePerMinute: number | null;
}

export interface CarShare {
  id: string;
  baseUrl: string;
  host: string;
  name: string;
  status: 'Active' | 'Suspended';
  suspendedReason: string | null;
  suspendedDateUtc: string | null;
  isDefault: boolean;
  issuer: string;
  limits: Limits;
  usage: Usage;
  createdDateUtc: string;
}

export interface Page<T> {
  total: number;
  limit: number;
  offset: number;
  nodes: T[];
}

const USAGE = `usage { userAccounts operators cars listedCars bookings bookingsLast30Days clientApplications
  webhookSubscriptions countedDateUtc }`;
const FIELDS = `id baseUrl host name status suspendedReason suspendedDateUtc isDefault issuer createdDateUtc
  limits { callerPerMinute anonymousPerMinute authPerMinute carSharePerMinute } ${USAGE}`;

export const PAGE_SIZE = 25;

/** A name search and an exact host match at once: a person types either into one box. */
export const SEARCH = `query($status: CarShareStatus, $name: String, $host: String, $byHost: Boolean!, $offset: Int) {
  byName: carShares(status: $status, name: $name, limit: ${PAGE_SIZE}, offset: $offset) {
    total limit offset nodes { ${FIELDS} } }
  byHost: carShares(status: $status, host: $host, limit: 1) @include(if: $byHost) { nodes { ${FIELDS} } } }`;

export const ONE = `query($id: UUID!) { carShare(id: $id) { ${FIELDS} } }`;

export const CREATE = `mutation($input: CreateCarShareInput!) { createCarShare(input: $input) {
  id baseUrl host name initialOperator { id username password } } }`;

export const UPDATE = `mutation($id: UUID!, $input: UpdateCarShareInput!) { updateCarShare(id: $id, input: $input) { id } }`;
export const SUSPEND = `mutation($id: UUID!, $reason: String) { suspendCarShare(id: $id, input: { reason: $reason }) { id } }`;
export const REACTIVATE = `mutation($id: UUID!) { reactivateCarShare(id: $id) { id } }`;
export const DELETE = `mutation($id: UUID!) { deleteCarShare(id: $id) { id } }`;
export const ADD_OPERATOR = `mutation($id: UUID!, $input: AddCarShareOperatorInput!) {
  addCarShareOperator(id: $id, input: $input) { id username password } }`;

export const AUDIT = `query($carShareId: UUID, $action: String, $offset: Int) {
  platformAudit(carShareId: $carShareId, action: $action, limit: 50, offset: $offset) {
    total limit offset nodes { id occurredDateUtc actorId actorType action subjectType subjectId requestId carShareId } } }`;

/** What the API's field names read as on the console's forms (after `fieldOf`). */
const labels: Record<string, string> = {
  baseUrl: 'BaseUrl',
  name: 'Name',
  'operator-username': 'Operator’s e-mail address',
  'operator-password': 'Operator’s password',
  username: 'E-mail address',
  password: 'Password',
  reason: 'Reason',
  'limits-callerPerMinute': 'Per caller',
  'limits-anonymousPerMinute': 'Per anonymous address',
  'limits-authPerMinute': 'Sign-in attempts',
  'limits-carSharePerMinute': 'Whole car share',
};

/**
 * `input.Operator.Username`, `Operator.Username` → `operator-username`: one spelling, the form's (no dots: the
 * form parser would nest them).
 */
export const fieldOf = (f: string): string =>
  f
    .replace(/^input\./, '')
    .split('.')
    .map((part) => part.charAt(0).toLowerCase() + part.slice(1))
    .join('-');

/** The API's refusal in words, its fields named as on the form. */
export const problemOf = (e: ApiError): Problem =>
  describeError(
    {
      ...e,
      field: e.field === undefined ? undefined : fieldOf(e.field),
      errors: e.errors.map((x) => ({ ...x, field: fieldOf(x.field) })),
    },
    labels,
  );
