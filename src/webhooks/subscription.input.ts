// Reading subscription input (CONTRACT §8): the accepted shapes (events as a list or one string, `event` for
// `events`, `url` beside `config.url`), checked field by field; errors name the field as the caller sent it.
import { eventNames, isEventName } from '../events/events.js';
import { fieldLabel } from '../shared/errors.js';
import { Check } from '../shared/validation.js';
import { parseSecret } from './secret.js';
import { refuseTarget, type TargetPolicy } from './target-guard.js';

export interface ConfigInput {
  url?: string | null;
  secret?: string | null;
  contentType?: string | null;
}
export interface CreateSubscriptionsInput {
  name?: string | null;
  events?: readonly string[] | null;
  event?: string | null;
  config?: ConfigInput | null;
  url?: string | null;
  /** An alias of `config.secret`, as `url` is of `config.url`. */
  secret?: string | null;
}
export interface UpdateSubscriptionInput {
  name?: string | null;
  config?: ConfigInput | null;
  url?: string | null;
  isActive?: boolean | null;
}

export const CONTENT_TYPE = 'application/json';

/** `["a b", "c,d"]` → `["a", "b", "c", "d"]`, lowercased, without repeats. */
export function splitEvents(values: readonly string[]): string[] {
  const names = values.flatMap((v) => v.split(/[\s,]+/)).map((s) => s.trim().toLowerCase());
  return [...new Set(names.filter((s) => s !== ''))];
}

export function checkName(c: Check, name: string | null | undefined): string | undefined {
  if (!c.required('name', name)) return undefined;
  const n = name!.trim();
  c.length('name', n, 4, 100);
  return n;
}

/** Syntax, scheme and (unless private targets are allowed) the addresses it resolves to. */
export async function checkUrl(
  c: Check,
  field: string,
  raw: string | null | undefined,
  policy: TargetPolicy,
) {
  if (!c.required(field, raw)) return undefined;
  const url = raw!.trim();
  c.length(field, url, 1, 2048);
  // Nothing reads a URL that is already refused, least of all the resolver.
  if (c.failed(field)) return url;
  const refused = await refuseTarget(url, policy);
  if (refused) c.add(refused.code, field, `${fieldLabel(field)} ${refused.message}`);
  return url;
}

export function checkContentType(c: Check, value: string | null | undefined): void {
  if (value !== undefined && value !== null && value.trim().toLowerCase() !== CONTENT_TYPE)
    c.add('InvalidValue', 'config.contentType', `Config.ContentType must be ${CONTENT_TYPE}`, {
      Allowed: [CONTENT_TYPE],
    });
}

/** Which of the two url fields the caller used, and its value. */
export function urlOf(input: { config?: ConfigInput | null; url?: string | null }) {
  const inConfig = input.config?.url !== undefined && input.config?.url !== null;
  return {
    field: inConfig || input.url == null ? 'config.url' : 'url',
    value: input.config?.url ?? input.url,
  };
}

export async function parseCreate(input: CreateSubscriptionsInput, policy: TargetPolicy) {
  const c = new Check();
  const name = checkName(c, input.name);
  const field = input.events == null && input.event != null ? 'event' : 'events';
  const events = splitEvents([...(input.events ?? []), ...(input.event ? [input.event] : [])]);
  const unknown = events.filter((e) => !isEventName(e));
  if (events.length === 0) c.add('NotEmpty', field, `${fieldLabel(field)} must name at least one event`);
  else if (unknown.length > 0)
    c.add('InvalidValue', field, `${fieldLabel(field)} has unknown event names: ${unknown.join(', ')}`, {
      Allowed: eventNames,
    });
  const u = urlOf(input);
  const url = await checkUrl(c, u.field, u.value, policy);
  let secret: string | undefined;
  const given = input.config?.secret ?? input.secret;
  if (given != null) {
    secret = parseSecret(given);
    const secretField = input.config?.secret != null ? 'config.secret' : 'secret';
    if (!secret)
      c.add(
        'InvalidValue',
        secretField,
        `${fieldLabel(secretField)} must be base64 of 24 to 64 random bytes, with or without the whsec_ prefix`,
      );
  }
  checkContentType(c, input.config?.contentType);
  c.throwIfAny();
  return { name: name!, events, url: url!, secret };
}
