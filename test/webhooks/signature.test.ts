// The signature the service computes with node:crypto is the one Standard Webhooks' own library computes.
import { Webhook } from 'standardwebhooks';
import { expect, it } from 'vitest';
import { signatureHeader } from '../../src/delivery/send.js';
import { generateSecret } from '../../src/webhooks/secret.js';

it('signs like standardwebhooks, for each secret of a rotation, over bodies with any characters', () => {
  const secrets = [generateSecret(), generateSecret()];
  const timestamp = new Date('2026-11-26T04:05:06.789Z');
  for (const body of [
    '{}',
    '{"Name":"profile_update","Description":"naïve — 車 😀"}',
    JSON.stringify({ Name: 'x'.repeat(5000) }),
  ]) {
    const deliveryId = 'a3f2c1d4e5b6a7980123456789abcdef';
    const expected = secrets.map((s) => new Webhook(s).sign(deliveryId, timestamp, body)).join(' ');
    expect(signatureHeader({ deliveryId, timestamp, body, secrets })).toBe(expected);
    const now = new Date();
    const headers = {
      'webhook-id': deliveryId,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    };
    const fresh = signatureHeader({ deliveryId, timestamp: now, body, secrets: [secrets[1]!] });
    expect(() =>
      new Webhook(secrets[1]!).verify(body, { ...headers, 'webhook-signature': fresh }),
    ).not.toThrow();
    expect(() => new Webhook(secrets[0]!).verify(body, { ...headers, 'webhook-signature': fresh })).toThrow();
  }
});
