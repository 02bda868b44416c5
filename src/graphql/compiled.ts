// Compiled execution (graphql-jit): each document is compiled once into a function and cached, by its
// DocumentNode (the REST facade hands over the same node for every request of a shape) or by its text (GraphQL
// clients repeating a query), within bounds. graphql-js interprets the document field by field on every request; on a 100-car
// page that is thousands of resolutions (test/bench, S1).
import { type DocumentNode, type ExecutionResult, GraphQLError, type GraphQLSchema } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { expansionOf } from './expansion.js';

/** Documents that failed to compile (odd but valid ones) are remembered too, so they are not tried again. */
type Entry = CompiledQuery | null;

/**
 * Larger documents run in graphql-js, whose work is linear in them: graphql-jit's compile time and code grow faster
 * than a document (on an idle machine 2,000 aliased `rating { id }` (4,000 selections) took 0.2 s to compile and
 * 4,000 took 0.9 s, keeping ~1.4 KB of heap per selection), and a client changing one alias pays it again. The REST
 * facade's largest document holds 134 selections; GraphiQL's introspection 230.
 */
export const MAX_COMPILED_SELECTIONS = 1_000;

/** Compiled documents by key, least recently used leaving first, bounded by count and by their selections. */
class Held<K> {
  readonly #entries = new Map<K, { entry: Entry; weight: number }>();
  #weight = 0;
  constructor(
    readonly max: number,
    readonly maxWeight: number,
  ) {}

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): Entry | undefined {
    const held = this.#entries.get(key);
    if (held === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, held);
    return held.entry;
  }

  set(key: K, entry: Entry, weight: number): void {
    while (
      this.#entries.size > 0 &&
      (this.#entries.size >= this.max || this.#weight + weight > this.maxWeight)
    ) {
      const [oldest, held] = this.#entries.entries().next().value!;
      this.#entries.delete(oldest);
      this.#weight -= held.weight;
    }
    this.#entries.set(key, { entry, weight });
    this.#weight += weight;
  }
}

export class CompiledDocuments {
  // The REST facade's documents by their node (it hands over the same one for every request of a shape); a
  // client's by text (Apollo parses each request anew). Each bounded: the facade keeps a node per shape and
  // route, and a client can send any number of documents. At most ~1.4 KB per selection: tens of MB each.
  readonly #byNode: Held<DocumentNode>;
  readonly #byText: Held<string>;

  constructor(
    private readonly schema: GraphQLSchema,
    /** Distinct documents kept of each kind, and their field selections (once expanded) in all. */
    max = 500,
    maxSelections = 25_000,
  ) {
    this.#byNode = new Held(max, maxSelections);
    this.#byText = new Held(max, maxSelections);
  }

  /** Documents held, by node and by text (tests). */
  get sizes(): { byNode: number; byText: number } {
    return { byNode: this.#byNode.size, byText: this.#byText.size };
  }

  /** The compiled form of a validated document; undefined when graphql-jit cannot compile it. */
  get(document: DocumentNode, text?: string, operationName?: string | null): CompiledQuery | undefined {
    const key = text === undefined ? undefined : `${operationName ?? ''}\n${text}`;
    const known = key === undefined ? this.#byNode.get(document) : this.#byText.get(key);
    if (known !== undefined) return known ?? undefined;
    const entry = this.#compile(document, operationName);
    // A document left to graphql-js holds no code here.
    const weight = entry ? Math.max(1, expansionOf(document).selections) : 1;
    if (key === undefined) this.#byNode.set(document, entry, weight);
    else this.#byText.set(key, entry, weight);
    return entry ?? undefined;
  }

  #compile(document: DocumentNode, operationName?: string | null): Entry {
    if (expansionOf(document).selections > MAX_COMPILED_SELECTIONS) return null;
    try {
      const compiled = compileQuery(this.schema, document, operationName ?? undefined, {
        // Errors carry what graphql-js would give them; the stack is not needed to shape an answer.
        disablingCapturingStackErrors: true,
      });
      return isCompiledQuery(compiled) ? compiled : null;
    } catch {
      // Something graphql-jit does not support: graphql-js runs this document instead.
      return null;
    }
  }

  /**
   * Runs a document compiled. Undefined when it could not be compiled, or when its variables were refused before
   * anything ran: the caller then runs graphql-js, whose answer for bad input is the one the contract documents.
   */
  async run(
    document: DocumentNode,
    variables: Record<string, unknown> | undefined,
    contextValue: unknown,
    text?: string,
    operationName?: string | null,
  ): Promise<ExecutionResult | undefined> {
    const compiled = this.get(document, text, operationName);
    if (!compiled) return undefined;
    const result = await compiled.query(undefined, contextValue, variables ?? {});
    if (!result.errors?.length) return result;
    if (result.data === undefined) return undefined;
    return { ...result, errors: result.errors.map(asGraphQLError) };
  }
}

/**
 * graphql-jit's errors only borrow GraphQLError's prototype (no `extensions` object, no constructor run); Apollo's
 * error formatting reads them as graphql-js builds them, so each is rebuilt as one, locations kept.
 */
function asGraphQLError(e: GraphQLError): GraphQLError {
  const error = new GraphQLError(e.message, {
    path: e.path,
    originalError: e.originalError,
    ...(e.extensions ? { extensions: e.extensions } : {}),
  });
  if (e.locations) Object.defineProperty(error, 'locations', { value: e.locations, enumerable: true });
  return error;
}
