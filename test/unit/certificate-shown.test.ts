// Pages name the self-signed certificate as a person in the project folder types it, never by the absolute path
// the server is installed at.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { selfSignedCertShown } from '../../src/tls.js';
import { guide } from '../../src/web/guide.js';

describe('the certificate as pages show it', () => {
  it('is relative to the project folder when the data folder is inside it', () => {
    expect(selfSignedCertShown('./.data')).toBe('.data/tls/localhost.crt');
    expect(selfSignedCertShown(join(process.cwd(), '.data'))).toBe('.data/tls/localhost.crt');
  });

  it('is the configured folder when that is elsewhere', () => {
    expect(selfSignedCertShown('/var/lib/carshare')).toBe('/var/lib/carshare/tls/localhost.crt');
  });

  it('is named in the guide without the install path, with where to run the commands', () => {
    const text = guide({
      baseUrl: 'https://localhost:8443',
      caFile: selfSignedCertShown(join(process.cwd(), '.data')),
      accessTokenSeconds: 900,
      refreshTokenSeconds: 1209600,
      perMinute: 600,
      anonymousPerMinute: 60,
      authPerMinute: 10,
    });
    expect(text).toContain('curl --cacert .data/tls/localhost.crt');
    expect(text).toContain('from the project folder');
    expect(text).not.toContain(process.cwd());
  });
});
