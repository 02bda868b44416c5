// Compiled execution (graphql-jit): each document is compiled once into a function and cached, by its
// DocumentNode (the REST facade hands over the same node for every request of a shape) or by its text (GraphQL
// clients repeating a query). graphql-js interprets the document field by field on every request; on a 100-car
// page that is thousands of resolutions (test/bench, S1).
import { type DocumentNode, type ExecutionResult, GraphQLError, type GraphQLSchema, print } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';

/** Documents that failed to compile (odd but valid ones) are remembered too, so they are not tried again. */
type Entry = CompiledQuery | null;

export class CompiledDocuments {
  readonly #byNode = new WeakMap<DocumentNode, Entry>();
  readonly #byText = new Map<string, Entry>();

  constructor(
    private readonly schema: GraphQLSchema,
    /** Distinct client documents kept; least recently used leave first. */
    private readonly max = 500,
  ) {}

  /** The compiled form of a validated document; undefined when graphql-jit cannot compile it. */
  get(document: DocumentNode, text?: string, operationName?: string | null): CompiledQuery | undefined {
    const byNode = this.#byNode.get(document);
    if (byNode !== undefined) return byNode ?? undefined;
    const key = `${operationName ?? ''}\n${text ?? print(document)}`;
    let entry = this.#byText.get(key);
    if (entry !== undefined) {
      this.#byText.delete(key);
    } else {
      entry = this.#compile(document, operationName);
      if (this.#byText.size >= this.max) this.#byText.delete(this.#byText.keys().next().value!);
    }
    this.#byText.set(key, entry);
    this.#byNode.set(document, entry);
    return entry ?? undefined;
  }

  #compile(document: DocumentNode, operationName?: string | null): Entry {
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
