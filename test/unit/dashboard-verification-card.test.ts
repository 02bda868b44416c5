// A verification card names its subject with a link: a person to the users list, a car to its own page; evidence
// dates read like every other date of the dashboard.
import { describe, expect, it } from 'vitest';
import { queuePage, type Verification } from '../../src/dashboard/verifications.pages.js';

const CAR = '0197a0c4-0000-7000-8000-000000000001';
const card = (v: Partial<Verification>) =>
  queuePage(
    {
      total: 1,
      limit: 10,
      offset: 0,
      nodes: [
        {
          id: '0197a0c4-0000-7000-8000-0000000000aa',
          subjectType: 'Car',
          subjectId: CAR,
          kind: 'Registration',
          status: 'Pending',
          evidence: { documentNumber: 'R-1', expiresDateUtc: '2031-05-06T07:08:09.000Z' },
          expiresDateUtc: null,
          decidedDateUtc: null,
          reason: null,
          lastModifiedDateUtc: '2026-07-01T10:00:00.000Z',
          ...v,
        },
      ],
    },
    { status: 'Pending', kind: '', subjectId: '' },
    { [CAR]: { label: 'Volkswagen Golf (B-CS 1)' } },
    'csrf',
    '/dashboard/verifications',
  ).value;

describe('a verification card', () => {
  it("links a car's verification to the car's page", () => {
    expect(card({})).toContain(`<a href="/dashboard/cars/${CAR}">Volkswagen Golf (B-CS 1)</a>`);
  });

  it('shows evidence dates as the dashboard shows dates', () => {
    expect(card({})).toContain('<time datetime="2031-05-06T07:08:09.000Z">2031-05-06 07:08:09 UTC</time>');
    expect(card({})).not.toContain('>2031-05-06T07:08:09.000Z<');
  });
});
