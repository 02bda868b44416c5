// The links an answer writes (an error page's, a resource's HTML form) name the request under the car share's own
// address: a request target naming another origin, or one the URL parser refuses, never leads elsewhere nor throws.
import { expect, it } from 'vitest';
import { requestUrl } from '../../rest-facade/respond.js';

const BASE = 'https://second.carshare.test';

it.each([
  ['/api/cars?format=xml', `${BASE}/api/cars?format=xml`],
  ['/%zz', `${BASE}/%zz`],
  [undefined, `${BASE}/`],
  ['//elsewhere.example/api/cars', `${BASE}/`],
  ['http://elsewhere.example/api/cars', `${BASE}/`],
  ['http://[', `${BASE}/`],
  ['http://a b', `${BASE}/`],
])('%s is read under the car share’s address as %s', (target, href) => {
  expect(requestUrl(target, BASE).href).toBe(href);
});
