// The schema assembly refuses a mutation open to operators or client applications that declares no audit
// entry (CONTRACT §18): a new administrative command cannot forget its entry.
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../../src/graphql/schema.js';
import { modules } from '../../src/modules.js';

const without = (moduleName: string, mutation: string) =>
  modules.map((m) => {
    if (m.name !== moduleName) return m;
    const { [mutation]: _, ...rest } = m.audit ?? {};
    return { ...m, audit: rest };
  });

describe('audit declarations', () => {
  it('the modules as composed build', () => {
    expect(() => buildSchema(modules)).not.toThrow();
  });

  it('a mutation operators may run, left undeclared, stops the build naming it', () => {
    expect(() => buildSchema(without('clientapps', 'rotateClientApplicationSecret'))).toThrow(
      /rotateClientApplicationSecret is open to operators or client applications/,
    );
    expect(() => buildSchema(without('bookings', 'cancelBooking'))).toThrow(/cancelBooking/);
  });

  it('a user-only mutation needs no declaration; a declaration of no mutation stops the build', () => {
    expect(modules.some((m) => m.audit && 'requestBooking' in m.audit)).toBe(false);
    const stray = modules.map((m) =>
      m.name === 'audit'
        ? { ...m, audit: { renameEverything: { subjectType: 'Car' as const, subjectId: () => 'x' } } }
        : m,
    );
    expect(() => buildSchema(stray)).toThrow(/renameEverything, which is no mutation/);
  });
});
