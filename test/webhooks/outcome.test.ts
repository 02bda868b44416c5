// The pure rules of delivery: what an attempt's result means (schedule, ±20 % jitter, Retry-After, 410,
// blocked, redelivery), the address classifier and the guard's resolution checks, and secret handling.
import { describe, expect, it } from 'vitest';
import { decide, jittered, parseRetryAfter } from '../../src/delivery/outcome.js';
import type { AttemptResult } from '../../src/delivery/send.js';
import { decryptSecret, encryptSecret, generateSecret, parseSecret } from '../../src/webhooks/secret.js';
import { isPublicAddress, refuseTarget, vettedAddresses } from '../../src/webhooks/target-guard.js';

const now = new Date('2026-07-01T10:00:00.000Z');
const CONTRACT_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400].map((s) => s * 1000);
const status = (statusCode: number, retryAfter: string | null = null): AttemptResult => ({
  kind: 'response',
  statusCode,
  retryAfter,
  body: null,
  requestId: 'r',
  durationMs: 1,
});
const failure = (blocked = false): AttemptResult => ({
  kind: 'error',
  error: blocked ? 'Blocked: x' : 'ECONNREFUSED: x',
  blocked,
  requestId: 'r',
  durationMs: 1,
});
const policy = (random = () => 0.5) => ({ retryScheduleMs: CONTRACT_SCHEDULE, random });
const delayOf = (o: { nextAttemptDateUtc: Date | null }) => o.nextAttemptDateUtc!.getTime() - now.getTime();

describe('decide', () => {
  it('makes ten attempts on the contract schedule: one first attempt plus one per step, then Failed', () => {
    const delays: number[] = [];
    let attemptCount = 0;
    for (;;) {
      const o = decide(status(500), { attemptCount, manual: false }, now, policy());
      attemptCount = o.attemptCount;
      if (o.status !== 'Pending') {
        expect(o.status).toBe('Failed');
        expect(o.nextAttemptDateUtc).toBeNull();
        break;
      }
      delays.push(delayOf(o));
    }
    expect(attemptCount).toBe(10);
    expect(delays).toEqual(CONTRACT_SCHEDULE);
  });

  it('jitters every step by at most ±20 %', () => {
    expect(jittered(300_000, () => 0)).toBe(240_000);
    expect(jittered(300_000, () => 0.999999)).toBe(360_000);
    for (let i = 0; i < 200; i++) {
      const d = delayOf(decide(status(500), { attemptCount: 1, manual: false }, now, policy(Math.random)));
      expect(d).toBeGreaterThanOrEqual(240_000);
      expect(d).toBeLessThanOrEqual(360_000);
    }
  });

  it('honours Retry-After on 429 and 503 (seconds or a date), never sooner than the schedule, at most 24 h', () => {
    const at = (r: AttemptResult, attemptCount = 0) =>
      delayOf(decide(r, { attemptCount, manual: false }, now, policy()));
    expect(at(status(503, '120'))).toBe(120_000);
    expect(at(status(429, new Date(now.getTime() + 60_000).toUTCString()))).toBe(60_000);
    expect(at(status(503, '2'))).toBe(5000);
    expect(at(status(503, '999999'))).toBe(24 * 3600 * 1000);
    expect(at(status(500, '120'))).toBe(5000);
    expect(parseRetryAfter('soon', now)).toBeNull();
  });

  it('succeeds on any 2xx, fails redirects, disables on 410, and fails a blocked target at once', () => {
    expect(decide(status(204), { attemptCount: 0, manual: false }, now, policy())).toMatchObject({
      status: 'Succeeded',
      success: true,
      attemptCount: 1,
    });
    expect(decide(status(302), { attemptCount: 0, manual: false }, now, policy()).status).toBe('Pending');
    expect(decide(status(410), { attemptCount: 0, manual: false }, now, policy())).toMatchObject({
      status: 'Failed',
      gone: true,
    });
    expect(decide(failure(true), { attemptCount: 0, manual: false }, now, policy()).status).toBe('Failed');
    expect(decide(failure(), { attemptCount: 0, manual: false }, now, policy()).status).toBe('Pending');
  });

  it('counts a redelivery outside the schedule; its failure schedules nothing', () => {
    expect(decide(failure(), { attemptCount: 10, manual: true }, now, policy())).toMatchObject({
      status: 'Failed',
      attemptCount: 10,
      nextAttemptDateUtc: null,
    });
    expect(decide(failure(), { attemptCount: 2, manual: true }, now, policy()).status).toBe('Failed');
  });
});

describe('the target guard', () => {
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('counts %s as public', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    'fc00::1',
    'fe80::1',
    '2002:7f00:1::1',
    '::127.0.0.1',
    '::7f00:1',
    '::8.8.8.8',
    '::ffff:0:127.0.0.1',
    '64:ff9b::10.0.0.1',
    '64:ff9b:1::a00:1',
    '2002:a00:1::1',
    '4000::1',
    'not an ip',
  ])('refuses %s', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it('refuses a name when any of its addresses is not public (DNS rebinding), or none at all', async () => {
    const mixed = async () => [
      { address: '8.8.8.8', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    await expect(vettedAddresses('rebind.example', mixed)).rejects.toThrow(/non-public/);
    const nxdomain = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
    };
    await expect(vettedAddresses('nowhere.invalid', nxdomain)).rejects.toMatchObject({ code: 'ENOTFOUND' });
    // At subscribe time an unresolvable name is refused (CONTRACT §13), as are loopback names with a trailing dot.
    expect(
      await refuseTarget('https://nowhere.invalid/x', { allowPrivate: false, lookup: nxdomain }),
    ).toMatchObject({ code: 'InvalidValue' });
    expect(await refuseTarget('https://localhost./h', { allowPrivate: false })).toMatchObject({
      code: 'InvalidValue',
    });
    const loopback = async (host: string) =>
      host === 'hooks.loopback.test' ? [{ address: '127.0.0.1', family: 4 }] : nxdomain();
    expect(
      await refuseTarget('https://hooks.loopback.test./h', { allowPrivate: false, lookup: loopback }),
    ).toMatchObject({ code: 'InvalidValue' });
    expect(await vettedAddresses('public.example', async () => [{ address: '8.8.4.4', family: 4 }])).toEqual([
      '8.8.4.4',
    ]);
    const refused = await refuseTarget('https://rebind.example/x', { allowPrivate: false, lookup: mixed });
    expect(refused).toMatchObject({ code: 'InvalidValue' });
    expect(await refuseTarget('https://user:pw@8.8.8.8/x', { allowPrivate: false })).toMatchObject({
      code: 'InvalidValue',
    });
    expect(await refuseTarget('http://127.0.0.1/x', { allowPrivate: true })).toBeUndefined();
  });
});

describe('secrets', () => {
  it('parses base64 of 24–64 bytes with or without whsec_, and refuses anything else', () => {
    const b24 = Buffer.alloc(24, 1).toString('base64');
    expect(parseSecret(b24)).toBe(`whsec_${b24}`);
    expect(parseSecret(`whsec_${b24}`)).toBe(`whsec_${b24}`);
    expect(parseSecret(Buffer.alloc(23).toString('base64'))).toBeUndefined();
    expect(parseSecret(Buffer.alloc(65).toString('base64'))).toBeUndefined();
    expect(parseSecret('not*base64!')).toBeUndefined();
  });

  it('encrypts bound to the subscription: another row cannot decrypt it', () => {
    const key = Buffer.alloc(32, 9);
    const s = generateSecret();
    const blob = encryptSecret(key, s, 'sub-1');
    expect(blob).not.toContain(s.slice(6));
    expect(decryptSecret(key, blob, 'sub-1')).toBe(s);
    expect(() => decryptSecret(key, blob, 'sub-2')).toThrow();
  });
});
