// /docs describes the platform where the platform API answers, at the default car share's address, and nowhere else
// (CONTRACT §22; issue 29: who holds the role, the first platform operator, the API).
import { describe, expect, it } from 'vitest';
import { statusOf } from '../../src/shared/errors.js';
import { guide } from '../../src/web/guide.js';

const settings = {
  baseUrl: 'https://localhost:8443',
  accessTokenSeconds: 900,
  refreshTokenSeconds: 1209600,
  perMinute: 600,
  anonymousPerMinute: 60,
  authPerMinute: 10,
};

describe('the Platform guide of /docs', () => {
  it('is in the default car share’s guide: the role, the first platform operator, the API, suspension', () => {
    const text = guide(settings);
    // The default car share's commands need no option naming it (test/rest-facade/car-shares.test.ts).
    expect(text).not.toContain('--car-share');
    const platform = text.slice(text.indexOf('\n## Platform\n'), text.indexOf('\n## Errors\n'));
    expect(platform.length).toBeGreaterThan(500);
    for (const words of [
      'Role `platform`',
      'npm run admin -- create-user',
      '--platform',
      '`GET /platform/api/carshares`',
      '`DELETE /platform/api/carshares/{Id}`',
      '`GET /platform/api/audit`',
      '`CarShareSuspended`',
      'delete-car-share',
    ])
      expect(platform).toContain(words);
    // The code it names is one the service answers with.
    expect(statusOf.CarShareSuspended).toBe(403);
  });

  it('is not in another car share’s guide (the platform API answers at the default car share only)', () => {
    const text = guide({
      ...settings,
      baseUrl: 'https://north.localhost:8443',
      carShareOption: 'https://north.localhost:8443',
    });
    expect(text).not.toContain('\n## Platform\n');
    expect(text).toContain('\n## Errors\n');
  });
});
