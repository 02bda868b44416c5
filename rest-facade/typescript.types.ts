// TypeScript declarations in ServiceStack's style for the types the REST API shows: classes for resources, value
// objects and inputs (PascalCase properties, as on the wire), enums, and the shared ResponseStatus and Metadata.
import {
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from 'graphql';
import { pascal } from './names.js';
import { fieldsOf, isResource } from './schema.model.js';
import { extraPageFields } from './selection.js';
import type { RouteTable } from './table.js';

const scalars: Readonly<Record<string, string>> = {
  String: 'string',
  ID: 'string',
  UUID: 'string',
  DateTime: 'string',
  Int: 'number',
  Float: 'number',
  Boolean: 'boolean',
  JSON: 'any',
};

export interface TsProperty {
  name: string;
  type: string;
  /** Absent from some answers or requests: `?`; otherwise `!` (always there, so `--strict` accepts it). */
  optional: boolean;
  description?: string | null | undefined;
}

/** A one-line doc comment; `*\/` inside a description must not end it. */
const doc = (text: string | null | undefined, indent: string): string[] =>
  text ? [`${indent}/** @description ${text.replace(/\s+/g, ' ').replaceAll('*/', '*\\/').trim()} */`] : [];

/** A class as ServiceStack writes one: public properties, a constructor taking a partial, then any methods. */
export function tsClass(
  name: string,
  props: readonly TsProperty[],
  opts: {
    heading?: string[];
    description?: string | null | undefined;
    extends?: string;
    implements?: string[];
    methods?: string[];
  } = {},
): string {
  const base = opts.extends ? ` extends ${opts.extends}` : '';
  const markers = opts.implements?.length ? ` implements ${opts.implements.join(', ')}` : '';
  const lines = [
    ...(opts.heading ?? []),
    ...doc(opts.description, ''),
    `export class ${name}${base}${markers}`,
    '{',
  ];
  for (const p of props)
    lines.push(...doc(p.description, '    '), `    public ${p.name}${p.optional ? '?' : '!'}: ${p.type};`);
  if (props.length > 0) lines.push('');
  const init = '(Object as any).assign(this, init);';
  lines.push(
    `    public constructor(init?: Partial<${name}>) { ${opts.extends ? `super(init); ${init}` : init} }`,
    ...(opts.methods ?? []).map((m) => `    ${m}`),
    '}',
  );
  return lines.join('\n');
}

const groups = ['type', 'response', 'request'] as const;
type Group = (typeof groups)[number];

/** The types a document references, each declared once, in the order they were first needed. */
export class TypeDeclarations {
  readonly #declared = new Map<string, string>();
  readonly #pending: GraphQLNamedType[] = [];
  readonly #groups = new Map<string, Group>();
  constructor(private readonly table: RouteTable) {}

  type(t: GraphQLInputType | GraphQLOutputType): string {
    const inner = isNonNullType(t) ? t.ofType : t;
    if (isListType(inner)) return `${this.type(inner.ofType)}[]`;
    if (isScalarType(inner)) return scalars[inner.name] ?? 'string';
    return this.ref(inner);
  }

  /** An input's type: a nullable one also takes null. */
  inputType(t: GraphQLInputType | GraphQLOutputType): string {
    return isNonNullType(t) ? this.type(t) : `${this.type(t)} | null`;
  }

  ref(t: GraphQLNamedType): string {
    const name = isResource(t) ? this.table.names.rest(t.name) : t.name;
    if (!this.#declared.has(name)) {
      this.#declared.set(name, '');
      this.#pending.push(t);
    }
    return name;
  }

  /** A schema type by its GraphQL name. */
  named(typeName: string): string {
    const t = this.table.schema.getType(typeName);
    if (!t) throw new Error(`TypeScript DTOs: the schema has no ${typeName}`);
    return this.ref(t);
  }

  /** The Metadata of a page: the shared class, or one extending it with what that search also applied. */
  metadata(page: GraphQLObjectType, node: GraphQLObjectType): string {
    const extra = extraPageFields(page);
    if (extra.length === 0) return 'Metadata';
    const name = `${this.table.names.rest(node.name)}Metadata`;
    if (this.#declared.get(name)) return name;
    const fields = page.getFields();
    const props = extra.map((f) => ({
      name: pascal(f),
      type: this.type(fields[f]!.type),
      optional: true,
      description: fields[f]!.description,
    }));
    this.declare(name, tsClass(name, props, { extends: 'Metadata' }));
    return name;
  }

  /** Declares a class by hand; requests and responses come after the types, as ServiceStack orders them. */
  declare(name: string, text: string, group: Group = 'type'): void {
    if (this.#declared.has(name)) throw new Error(`TypeScript DTOs: ${name} is declared twice`);
    this.#declared.set(name, text);
    this.#groups.set(name, group);
  }

  /** Declares every type referenced so far (and those they reference); returns them all. */
  drain(): string[] {
    for (let t = this.#pending.shift(); t; t = this.#pending.shift()) {
      const name = this.ref(t);
      if (isEnumType(t)) {
        const values = t.getValues().map((v) => `${v.name}: '${v.name}'`);
        this.#declared.set(
          name,
          [
            ...doc(t.description, ''),
            `export const ${name} = { ${values.join(', ')} } as const;`,
            `export type ${name} = (typeof ${name})[keyof typeof ${name}];`,
          ].join('\n'),
        );
        continue;
      }
      const fields = isObjectType(t)
        ? [...fieldsOf(t).plain, ...fieldsOf(t).embeds]
        : isInputObjectType(t)
          ? Object.values(t.getFields())
          : [];
      const props = fields.map((f) => ({
        name: pascal(f.name),
        // An input's nullable field takes null (a PATCH clears it with null).
        type: isInputObjectType(t) ? this.inputType(f.type) : this.type(f.type),
        // Embedded resources come only with `embed`; input fields with a default may be left out.
        optional:
          !isNonNullType(f.type) ||
          (isObjectType(t) && isResource(getNamedType(f.type))) ||
          ('defaultValue' in f && f.defaultValue !== undefined),
        description: f.description,
      }));
      this.#declared.set(name, tsClass(name, props, { description: t.description }));
    }
    const rank = (name: string) => groups.indexOf(this.#groups.get(name) ?? 'type');
    return [...this.#declared]
      .map(([name, text], i) => ({ text, order: rank(name) * 1e6 + i }))
      .sort((a, b) => a.order - b.order)
      .map((d) => d.text);
  }
}
