// A car share's BaseUrl (CONTRACT §19): an https origin — scheme, host, optional port; no path, query, fragment or
// userinfo — stored with its host lowercase, and the host requests are matched on.
import { describe, expect, it } from 'vitest';
import { checkBaseUrl } from '../../src/carshares/car-share.commands.js';
import { Check } from '../../src/shared/validation.js';

const read = (value: string | null) => {
  const check = new Check();
  const address = checkBaseUrl(check, 'baseUrl', value);
  return { address, errors: check.errors };
};

describe('checkBaseUrl', () => {
  it.each([
    ['https://cars.example', 'https://cars.example', 'cars.example'],
    ['https://Cars.EXAMPLE:8443/', 'https://cars.example:8443', 'cars.example'],
    ['  https://cars.example/  ', 'https://cars.example', 'cars.example'],
    ['https://cars.example:443', 'https://cars.example', 'cars.example'],
    ['https://[::1]:8443', 'https://[::1]:8443', '[::1]'],
  ])('takes %s as %s at host %s', (value, baseUrl, host) => {
    expect(read(value)).toEqual({ address: { baseUrl, host }, errors: [] });
  });

  it.each([
    'http://cars.example',
    'cars.example',
    'https://cars.example/app',
    'https://cars.example//',
    'https://cars.example?',
    'https://cars.example/?a=1',
    'https://cars.example#top',
    'https://user@cars.example',
    'https://user:secret@cars.example',
    'https://@cars.example',
    'https://',
    'ftp://cars.example',
    `https://${'a'.repeat(250)}.example`,
  ])('refuses %s as InvalidFormat naming BaseUrl', (value) => {
    const { address, errors } = read(value);
    expect(address).toBeUndefined();
    expect(errors).toEqual([
      {
        code: 'InvalidFormat',
        field: 'baseUrl',
        message: expect.stringMatching(/^BaseUrl must be an https origin/),
      },
    ]);
  });

  it('refuses an empty value as NotEmpty', () => {
    expect(read('  ').errors[0]).toMatchObject({ code: 'NotEmpty', field: 'baseUrl' });
    expect(read(null).errors[0]).toMatchObject({ code: 'NotEmpty', field: 'baseUrl' });
  });
});
