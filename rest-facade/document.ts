// Builds the GraphQL operation for a route as an AST (never from request strings), validated once and
// cached by its shape: the operation, the arguments supplied, and the selection.
import {
  type DocumentNode,
  type GraphQLArgument,
  type GraphQLSchema,
  Kind,
  type OperationTypeNode,
  parseType,
  print,
  type SelectionSetNode,
  validate,
} from 'graphql';

export interface DocumentShape {
  operation: OperationTypeNode;
  field: string;
  /** The arguments the request supplies, declared as variables of the same names and types. */
  args: readonly GraphQLArgument[];
  selection: SelectionSetNode;
}

const name = (value: string) => ({ kind: Kind.NAME, value }) as const;

function build(shape: DocumentShape): DocumentNode {
  return {
    kind: Kind.DOCUMENT,
    definitions: [
      {
        kind: Kind.OPERATION_DEFINITION,
        operation: shape.operation,
        name: name('Rest'),
        variableDefinitions: shape.args.map((a) => ({
          kind: Kind.VARIABLE_DEFINITION,
          variable: { kind: Kind.VARIABLE, name: name(a.name) },
          type: parseType(String(a.type)),
        })),
        selectionSet: {
          kind: Kind.SELECTION_SET,
          selections: [
            {
              kind: Kind.FIELD,
              name: name(shape.field),
              arguments: shape.args.map((a) => ({
                kind: Kind.ARGUMENT,
                name: name(a.name),
                value: { kind: Kind.VARIABLE, name: name(a.name) },
              })),
              selectionSet: shape.selection,
            },
          ],
        },
      },
    ],
  };
}

/** Parsed and validated documents by shape; bounded so odd `filter`/`embed` combinations cannot grow it. */
export class DocumentCache {
  readonly #docs = new Map<string, DocumentNode>();
  /** Plans of every owner in one map, so that the bound holds for the facade as a whole, not per route. */
  readonly #plans = new Map<string, unknown>();
  readonly #owners = new WeakMap<object, number>();
  #nextOwner = 0;
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly max = 1000,
  ) {}

  get size(): number {
    return this.#docs.size;
  }

  /**
   * What a request of one shape needs (its document and node selection), by a key the caller derives from the
   * request without building anything: a repeated shape then builds, prints and validates nothing (the same
   * DocumentNode also keeps its compiled form, src/graphql/compiled.ts). At most `max` shapes in all, the least
   * recently used leaving first: a client rotating `filter`/`embed` combinations over every route holds no more.
   */
  plan<T>(owner: object, key: string, make: () => T): T {
    let id = this.#owners.get(owner);
    if (id === undefined) {
      id = this.#nextOwner++;
      this.#owners.set(owner, id);
    }
    const full = `${id}\n${key}`;
    const hit = this.#plans.get(full);
    if (hit !== undefined) {
      this.#plans.delete(full);
      this.#plans.set(full, hit);
      return hit as T;
    }
    const made = make();
    if (this.#plans.size >= this.max) this.#plans.delete(this.#plans.keys().next().value!);
    this.#plans.set(full, made);
    return made;
  }

  /** Shapes planned now, over every owner (for tests). */
  get plans(): number {
    return this.#plans.size;
  }

  get(shape: DocumentShape): DocumentNode {
    const doc = build(shape);
    // The printed document is the shape's key: identical shapes print identically.
    const key = print(doc);
    const hit = this.#docs.get(key);
    if (hit) {
      // Refresh its place so the least recently used leaves first.
      this.#docs.delete(key);
      this.#docs.set(key, hit);
      return hit;
    }
    const errors = validate(this.schema, doc);
    if (errors.length > 0)
      throw new Error(`route document is invalid: ${errors.map((e) => e.message).join('; ')}`);
    if (this.#docs.size >= this.max) this.#docs.delete(this.#docs.keys().next().value!);
    this.#docs.set(key, doc);
    return doc;
  }
}
