// Binds request parameters to a GraphQL operation's arguments, coercing text to each argument's type and
// naming every field that cannot be coerced (CONTRACT §2). Types come from the schema, never a list here.
import {
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLScalarType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
} from 'graphql';
import { type FieldCode, fieldError, fieldErrors, type ResponseError } from './errors.js';
import { readJsv } from './formats/jsv.js';
import { nameKey, pascal } from './names.js';
import type { Param, Params } from './request.js';
import type { ComposedArgument } from './route.types.js';
import type { AnyField } from './schema.model.js';
import { MAX_NUMBER_TEXT, numberFromText } from './text.js';

const INT = /^[+-]?\d+$/;
/** GraphQL's Int is 32 bits: anything wider is out of range here, in REST words (CONTRACT §13). */
const INT_MAX = 2 ** 31 - 1;
const INT_MIN = -(2 ** 31);

class Binder {
  readonly errors: ResponseError[] = [];
  /** Canonical field key → the alias the client used, so errors name the field as sent. */
  readonly aliases = new Map<string, string>();
  readonly used = new Set<string>();
  constructor(private readonly aliasTable: Readonly<Record<string, readonly string[]>>) {}

  fail(
    code: Parameters<typeof fieldError>[0],
    field: string,
    message: string,
    meta?: Record<string, unknown>,
  ): undefined {
    if (!this.errors.some((e) => e.FieldName === field))
      this.errors.push(fieldError(code, field, message, meta));
    return undefined;
  }

  /** PostgreSQL cannot store U+0000 in text: refused as the field's value, never stored (CONTRACT §13). */
  nul(field: string): undefined {
    return this.fail('InvalidValue', field, `${field} must not contain NUL characters`);
  }

  /** Finds a parameter by its canonical name or one of its aliases. */
  find(params: Params, name: string, restPath: string): { param: Param; field: string } | undefined {
    const direct = params.get(nameKey(name));
    if (direct) return { param: direct, field: restPath };
    for (const alias of this.aliasTable[name] ?? []) {
      const p = params.get(nameKey(alias));
      if (p) {
        this.aliases.set(nameKey(restPath), p.name);
        return { param: p, field: p.name };
      }
    }
    return undefined;
  }

  coerce(value: unknown, type: GraphQLInputType, field: string, text: boolean): unknown {
    if (value === null || value === undefined) {
      if (isNonNullType(type)) return this.fail('NotEmpty', field, `${field} must not be empty`);
      return null;
    }
    const t = getNullableType(type);
    if (isListType(t)) {
      const structured = typeof value === 'string' && text ? structuredText(value, '[') : value;
      const items = Array.isArray(structured)
        ? structured
        : typeof structured === 'string'
          ? structured.split(/[,\s]+/).filter((s) => s !== '')
          : [structured];
      return items.map((v) => this.coerce(v, t.ofType, field, text));
    }
    if (isEnumType(t)) {
      const match = t.getValues().find((v) => nameKey(v.name) === nameKey(String(value)));
      if (typeof value !== 'string' || !match)
        return this.fail(
          'InvalidValue',
          field,
          `${field} must be one of ${t
            .getValues()
            .map((v) => v.name)
            .join(', ')}`,
          {
            Allowed: t.getValues().map((v) => v.name),
          },
        );
      return match.name;
    }
    if (isInputObjectType(t)) {
      let obj: unknown = value;
      if (typeof obj === 'string' && text) obj = structuredText(obj, '{');
      if (obj === null || typeof obj !== 'object' || Array.isArray(obj))
        return this.fail('InvalidFormat', field, `${field} must be an object`);
      const inner: Params = new Map();
      for (const [k, v] of Object.entries(obj as Record<string, unknown>))
        inner.set(nameKey(k), { name: k, value: v, text, source: 'body' });
      return this.object(t, inner, field);
    }
    if (isScalarType(t)) return this.scalar(t, value, field, text);
    return value;
  }

  scalar(type: GraphQLScalarType, value: unknown, field: string, text: boolean): unknown {
    const s = typeof value === 'string' ? value.trim() : undefined;
    switch (type.name) {
      case 'String':
      case 'ID':
        if (typeof value === 'object') return this.fail('InvalidFormat', field, `${field} must be text`);
        if (typeof value === 'string' && value.includes('\0')) return this.nul(field);
        return typeof value === 'string' ? value : String(value);
      case 'Int': {
        const n = typeof value === 'number' ? value : s !== undefined && INT.test(s) ? Number(s) : Number.NaN;
        if (!Number.isInteger(n) && !(typeof value === 'number' && !Number.isFinite(value)))
          return this.fail('InvalidFormat', field, `${field} must be a whole number`);
        if (!(n >= INT_MIN && n <= INT_MAX))
          return this.fail('OutOfRange', field, `${field} must be between ${INT_MIN} and ${INT_MAX}`, {
            Min: INT_MIN,
            Max: INT_MAX,
          });
        return n;
      }
      case 'Float': {
        // Length first: no pattern reads a 64 KiB "number" (CONTRACT §28).
        if (s !== undefined && s.length > MAX_NUMBER_TEXT)
          return this.fail(
            'InvalidFormat',
            field,
            `${field} must be a number written in at most ${MAX_NUMBER_TEXT} characters`,
          );
        const n = typeof value === 'number' ? value : s !== undefined ? numberFromText(s) : Number.NaN;
        if (Number.isNaN(n)) return this.fail('InvalidFormat', field, `${field} must be a number`);
        if (!Number.isFinite(n)) return this.fail('OutOfRange', field, `${field} is too large`);
        return n;
      }
      case 'Boolean':
        if (typeof value === 'boolean') return value;
        if (s !== undefined && /^(true|1)$/i.test(s)) return true;
        if (s !== undefined && /^(false|0)$/i.test(s)) return false;
        return this.fail('InvalidFormat', field, `${field} must be true or false`);
      case 'UUID':
      case 'DateTime': {
        // The schema's own scalar decides, so REST and GraphQL accept and refuse the same ids and dates with the
        // same words. A value that is not text (a JSON number, an object) is refused as empty text is.
        const read = readWith(type, s ?? '');
        if (!read.ok) return this.fail(read.code, field, `${field} ${read.message}`);
        return read.value instanceof Date ? read.value.toISOString() : read.value;
      }
      case 'JSON': {
        const json = typeof value === 'string' && text ? structuredText(value, '{[') : value;
        const at = nulPath(json, field);
        return at === undefined ? json : this.nul(at);
      }
      default:
        return value;
    }
  }

  /** Binds an input object's fields from parameters; dotted names (`Config.Url`) reach nested objects. */
  object(type: GraphQLInputObjectType, params: Params, path: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const f of Object.values(type.getFields())) {
      const restPath = path ? `${path}.${pascal(f.name)}` : pascal(f.name);
      const found = this.find(params, f.name, restPath);
      if (found) {
        this.used.add(nameKey(found.param.name));
        const v = this.coerce(found.param.value, f.type, found.field, found.param.text);
        if (v !== undefined) out[f.name] = v;
        continue;
      }
      const nested = getNullableType(f.type);
      if (isInputObjectType(nested)) {
        const prefix = `${nameKey(f.name)}.`;
        const inner: Params = new Map();
        for (const [k, p] of params)
          if (k.startsWith(prefix)) {
            inner.set(k.slice(prefix.length), p);
            this.used.add(k);
          }
        if (inner.size > 0) {
          out[f.name] = this.object(nested, inner, restPath);
          continue;
        }
      }
      if (isNonNullType(f.type) && f.defaultValue === undefined)
        this.fail('NotEmpty', restPath, `${restPath} must not be empty`);
    }
    return out;
  }
}

/** Where a NUL sits in a JSON value (`Evidence.Number`), if anywhere. */
function nulPath(v: unknown, path: string): string | undefined {
  if (typeof v === 'string') return v.includes('\0') ? path : undefined;
  if (Array.isArray(v)) return v.map((x) => nulPath(x, path)).find((p) => p !== undefined);
  if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      const found = k.includes('\0') ? path : nulPath(x, `${path}.${pascal(k)}`);
      if (found) return found;
    }
  return undefined;
}

/**
 * A form or query value holding an object or array (opening with one of `openers`): JSON, or else JSV as
 * ServiceStack accepts (`{Jurisdiction:CA,Number:7ABC123}`, `[user,ops]`). Anything else stays text.
 */
function structuredText(s: string, openers: string): unknown {
  const t = s.trim();
  if (!openers.includes(t.charAt(0))) return s;
  try {
    return JSON.parse(t);
  } catch {
    try {
      return readJsv(t);
    } catch {
      return s;
    }
  }
}

/**
 * A value read by one of the schema's own scalars (UUID, DateTime), so REST and GraphQL refuse exactly the same
 * ids and dates (CONTRACT §13); its refusal carries the error code and the words after the field's name.
 */
function readWith(
  scalar: GraphQLScalarType,
  text: string,
): { ok: true; value: unknown } | { ok: false; code: FieldCode; message: string } {
  try {
    return { ok: true, value: scalar.parseValue(text) };
  } catch (e) {
    const { message, extensions } = e as { message: string; extensions?: { code?: unknown } };
    const code = extensions?.code === 'OutOfRange' ? 'OutOfRange' : 'InvalidFormat';
    return { ok: false, code, message };
  }
}

export interface Bound {
  variables: Record<string, unknown>;
  /** Parameters that fed an argument or input field (by `nameKey`). */
  used: ReadonlySet<string>;
  aliases: ReadonlyMap<string, string>;
}

/**
 * Binds path parameters (which win: they name the resource) and the merged body/query parameters to the
 * operation's arguments. An input-object argument takes its fields from the top level of the request.
 */
export function bindArguments(
  field: AnyField,
  pathArgs: ReadonlyMap<string, { param: string; value: string | undefined }>,
  params: Params,
  aliases: Readonly<Record<string, readonly string[]>> = {},
  composed: Readonly<Record<string, ComposedArgument>> = {},
): Bound {
  const b = new Binder(aliases);
  const variables: Record<string, unknown> = {};
  for (const arg of field.args) {
    const rule = composed[arg.name];
    if (rule) {
      for (const p of rule.parameters) b.used.add(nameKey(p.name));
      const v = rule.bind(params, (code, name, message) => b.fail(code, name, message));
      if (v !== undefined) variables[arg.name] = v;
      continue;
    }
    const fromPath = pathArgs.get(arg.name);
    if (fromPath) {
      b.used.add(nameKey(fromPath.param));
      const v = b.coerce(fromPath.value, arg.type, fromPath.param, true);
      if (v !== undefined) variables[arg.name] = v;
      continue;
    }
    const named = getNullableType(arg.type);
    if (isInputObjectType(named)) {
      const before = b.used.size;
      const obj = b.object(named, params, '');
      if (isNonNullType(arg.type) || b.used.size > before || Object.keys(obj).length > 0)
        variables[arg.name] = obj;
      continue;
    }
    const found = b.find(params, arg.name, pascal(arg.name));
    if (!found) {
      if (isNonNullType(arg.type) && arg.defaultValue === undefined)
        b.fail('NotEmpty', pascal(arg.name), `${pascal(arg.name)} must not be empty`);
      continue;
    }
    b.used.add(nameKey(found.param.name));
    const v = b.coerce(found.param.value, arg.type, found.field, found.param.text);
    if (v !== undefined) variables[arg.name] = v;
  }
  if (b.errors.length > 0) throw fieldErrors(b.errors);
  return { variables, used: b.used, aliases: b.aliases };
}
