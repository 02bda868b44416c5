// What an operator reads for each error the API can return (CONTRACT §10), and how field errors are labelled.
import { describe, expect, it } from 'vitest';
import { describeError } from '../../src/dashboard/errors.js';
import { errorCodes } from '../../src/shared/errors.js';

describe('describeError', () => {
  it('gives every error code of the contract its own plain sentence', () => {
    const seen = errorCodes.map((code) => describeError({ code, message: 'detail', errors: [] }).summary);
    for (const s of seen) expect(s).not.toMatch(/could not be completed/);
    expect(describeError({ code: 'SomethingNew', message: 'x', errors: [] }).summary).toContain(
      'could not be completed',
    );
  });

  it('names each invalid field by its label, keeping the API’s words', () => {
    const p = describeError(
      {
        code: 'TooShort',
        message: 'name must be at least 3 characters',
        field: 'name',
        errors: [
          { code: 'TooShort', field: 'name', message: 'name must be at least 3 characters' },
          { code: 'InvalidFormat', field: 'config.url', message: 'config.url: ftp://x must be https' },
          { code: 'TooLong', field: 'input.firstName', message: 'FirstName must be at most 50 characters' },
        ],
      },
      { name: 'Name', 'config.url': 'URL', firstName: 'First name' },
    );
    expect(p.summary).toBe('Some fields need your attention.');
    expect(p.fields.map((f) => f.message)).toEqual([
      'Name must be at least 3 characters',
      'URL: ftp://x must be https',
      'First name must be at most 50 characters',
    ]);
  });

  it('adds the rule, the state or the request id where the API gives them', () => {
    expect(
      describeError({
        code: 'RuleViolation',
        message: 'Too late',
        errors: [],
        meta: { rule: 'DecisionTooLate' },
      }).summary,
    ).toBe('A rule of the car share does not allow this. Too late (DecisionTooLate)');
    expect(
      describeError({ code: 'InternalServerError', message: 'x', errors: [], meta: { requestId: 'req-42' } })
        .summary,
    ).toContain('req-42');
    expect(
      describeError({ code: 'NotFound', message: 'Client application was not found', errors: [] }).summary,
    ).toContain('Client application was not found');
  });
});
