// When a cached token check expires, the requests that find it gone at once share one check of the token instead of
// each reading the token, its client and grant (bench S3: 100 connections polling with one token); a request that
// arrives after an invalidation never joins a check that began before it.
import { pino } from 'pino';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { TokenCache } from '../../src/access/token.cache.js';
import type { CarShare } from '../../src/carshares/car-share.js';
import { APPLICATION_ID } from '../../src/oauth/clients.js';
import { API_RESOURCE } from '../../src/oauth/consent.store.js';
import type { OAuthSite } from '../../src/oauth/site.js';
import { tokenAuthenticator } from '../../src/oauth/token.authenticator.js';

const log = pino({ level: 'silent' });
const carShare = { id: 'car-share-shared-checks' } as CarShare;

/** An authorization server whose stored client-credentials token is found after `delayMs`, counting the finds. */
function site(delayMs: number) {
  const finds = { token: 0 };
  const later = <T>(value: T) => new Promise<T>((ok) => setTimeout(() => ok(value), delayMs));
  const provider = {
    AccessToken: { find: async () => undefined },
    ClientCredentials: {
      find: () => {
        finds.token += 1;
        return later({
          kind: 'ClientCredentials',
          isExpired: false,
          exp: Math.floor(Date.now() / 1000) + 600,
          aud: API_RESOURCE,
          clientId: 'client-1',
          scope: 'cars:read',
        });
      },
    },
    Client: { find: async () => ({ [APPLICATION_ID]: 'app-1' }) },
  };
  return { finds, site: { provider, carShareId: carShare.id } as unknown as OAuthSite };
}

let cache: TokenCache;
let stop: () => Promise<void>;
beforeAll(async () => {
  cache = new TokenCache();
  stop = await cache.listen(inject('databaseUrl'), log);
});
afterAll(async () => stop());

it('requests that miss the cache together share one check, and each gets the actor', async () => {
  const { finds, site: s } = site(30);
  const auth = await tokenAuthenticator({ siteFor: async () => s, databaseUrl: '', log, tokens: cache });
  const actors = await Promise.all(
    Array.from({ length: 20 }, () => auth.actorFor('Bearer shared-token-1', carShare, false)),
  );
  expect(finds.token).toBe(1);
  expect(new Set(actors.map((a) => `${a.kind}:${a.id}`))).toEqual(new Set(['clientapplication:app-1']));
  // The answer is cached: the next request reads nothing.
  await auth.actorFor('Bearer shared-token-1', carShare, false);
  expect(finds.token).toBe(1);
});

it('a request that arrives after an invalidation does not join a check that began before it', async () => {
  const { finds, site: s } = site(50);
  const auth = await tokenAuthenticator({ siteFor: async () => s, databaseUrl: '', log, tokens: cache });
  const first = auth.actorFor('Bearer shared-token-2', carShare, false);
  await new Promise((r) => setTimeout(r, 10));
  // Heard as the announcements of a revocation are (any invalidation bumps the generation).
  cache.forget('client:client-1');
  const second = auth.actorFor('Bearer shared-token-2', carShare, false);
  await Promise.all([first, second]);
  expect(finds.token).toBe(2);
});
