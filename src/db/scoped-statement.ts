// One statement in a car share's scope in one round trip (CONTRACT §24). The scope's settings and the statement go
// as one extended-protocol batch that ends in one Sync: PostgreSQL runs everything up to a Sync in one implicit
// transaction, so `set_config(…, true)` — what SET LOCAL does — binds the statement after it, and it answers once.
// A BEGIN, a SET LOCAL and a COMMIT of their own were three more round trips, which cost a one-statement read
// (test/bench S2) more than the read itself.
import { createRequire } from 'node:module';
import pg from 'pg';

/** pg's own conversion of a JavaScript value to the text PostgreSQL is sent (dates, buffers, arrays, JSON). */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue(v: unknown): unknown;
};

/** The scope: the role car share work runs as and the car share every policy reads (src/db/scope.ts). */
const SCOPE_TEXT = `select set_config('role', $1, true), set_config('carshare.car_share_id', $2, true)`;
const SCOPE_NAME = 'carshare_scope';

interface Wire {
  parse(q: { name: string; text: string; types: unknown[] }): void;
  bind(c: { portal: string; statement: string; values: unknown[]; valueMapper?: unknown }): void;
  describe(m: { type: 'P'; name: string }): void;
  execute(c: { portal: string; rows: number }): void;
  close(m: { type: 'S'; name: string }): void;
  sync(): void;
  stream: { cork?(): void; uncork?(): void };
}

/**
 * Statements this module has seen parsed on a connection. pg's own bookkeeping is keyed by the query it is
 * running, which here is not the statement; a name not known here is closed and parsed again (closing a statement
 * that does not exist is no error), so a batch that failed half way never leaves a name wrongly believed parsed.
 */
const parsed = new WeakMap<object, Set<string>>();

export interface ScopedQuery {
  role: string;
  carShareId: string;
  /** `$n` placeholders; `name` prepares it (once per connection). */
  text: string;
  name?: string | undefined;
  values: readonly unknown[];
  /**
   * A transaction's BEGIN (as MikroORM sent it) to open the block first: the scope is then set as SET LOCAL sets it,
   * and the block outlives the Sync (src/db/transaction-edges.ts).
   */
  begin?: string | undefined;
}

/** A pg Submittable: queued like any query on a client, answered by one ReadyForQuery. */
export class ScopedStatement implements pg.Submittable {
  /** Statements it carries (the benchmark's probe counts them, not round trips), and the last one's text. */
  readonly statements: number;
  get sql(): string {
    return `[scoped] ${this.#query.text}`;
  }
  readonly result: Promise<pg.QueryResult>;
  /** pg gives the client's type parsers to the result it finds here. */
  readonly _result: unknown;
  readonly #query: ScopedQuery;
  readonly #inner: pg.Query;
  /** Command completions still to come before the statement's own: the BEGIN's, if any, and the scope's. */
  #before: number;
  #pending: string[] = [];
  #wire: Wire | undefined;

  constructor(query: ScopedQuery) {
    this.#query = query;
    this.#before = query.begin === undefined ? 1 : 2;
    this.statements = this.#before + 1;
    let settle: (err: Error | null | undefined, res?: pg.QueryResult) => void = () => undefined;
    this.result = new Promise((ok, fail) => {
      settle = (err, res) => (err ? fail(err) : ok(res!));
    });
    this.#inner = new pg.Query({ text: query.text, values: [...query.values] }, undefined, (err, res) =>
      settle(err, res),
    );
    this._result = (this.#inner as unknown as { _result: unknown })._result;
  }

  submit(connection: pg.Connection): Error | null {
    const wire = connection as unknown as Wire;
    this.#wire = wire;
    const known = parsed.get(connection) ?? new Set<string>();
    parsed.set(connection, known);
    const prepare = (name: string, text: string) => {
      if (known.has(name)) return;
      wire.close({ type: 'S', name });
      wire.parse({ name, text, types: [] });
      this.#pending.push(name);
    };
    const name = this.#query.name ?? '';
    wire.stream.cork?.();
    try {
      if (this.#query.begin !== undefined) {
        // A transaction block opened here outlives the Sync: the statements after it are the transaction's.
        wire.parse({ name: '', text: this.#query.begin, types: [] });
        wire.bind({ portal: '', statement: '', values: [], valueMapper: prepareValue });
        wire.execute({ portal: '', rows: 0 });
      }
      prepare(SCOPE_NAME, SCOPE_TEXT);
      wire.bind({
        portal: '',
        statement: SCOPE_NAME,
        values: [this.#query.role, this.#query.carShareId],
        valueMapper: prepareValue,
      });
      wire.execute({ portal: '', rows: 0 });
      if (name) prepare(name, this.#query.text);
      else wire.parse({ name: '', text: this.#query.text, types: [] });
      wire.bind({
        portal: '',
        statement: name,
        values: [...this.#query.values],
        valueMapper: prepareValue,
      });
      wire.describe({ type: 'P', name: '' });
      wire.execute({ portal: '', rows: 0 });
      wire.sync();
    } finally {
      wire.stream.uncork?.();
    }
    return null;
  }

  /** The statements parsed in this batch, once a later message shows they were. */
  #confirm(upTo: 'scope' | 'all'): void {
    if (!this.#wire) return;
    const known = parsed.get(this.#wire as unknown as object);
    for (const n of this.#pending) if (upTo === 'all' || n === SCOPE_NAME) known?.add(n);
    this.#pending = upTo === 'all' ? [] : this.#pending.filter((n) => n !== SCOPE_NAME);
  }

  handleRowDescription(msg: unknown): void {
    this.#confirm('all');
    (this.#inner as unknown as { handleRowDescription(m: unknown): void }).handleRowDescription(msg);
  }

  handleDataRow(msg: unknown): void {
    // The scope's own row (its portal is not described) is no row of the answer.
    if (this.#before > 0) return;
    (this.#inner as unknown as { handleDataRow(m: unknown): void }).handleDataRow(msg);
  }

  handleCommandComplete(msg: unknown, connection: pg.Connection): void {
    if (this.#before > 0) {
      this.#before -= 1;
      if (this.#before === 0) this.#confirm('scope');
      return;
    }
    this.#confirm('all');
    (this.#inner as unknown as { handleCommandComplete(m: unknown, c: unknown): void }).handleCommandComplete(
      msg,
      connection,
    );
  }

  handleEmptyQuery(connection: pg.Connection): void {
    (this.#inner as unknown as { handleEmptyQuery(c: unknown): void }).handleEmptyQuery(connection);
  }

  handleError(err: Error, connection: pg.Connection): void {
    (this.#inner as unknown as { handleError(e: Error, c: unknown): void }).handleError(err, connection);
  }

  handleReadyForQuery(connection: pg.Connection): void {
    (this.#inner as unknown as { handleReadyForQuery(c: unknown): void }).handleReadyForQuery(connection);
  }
}
