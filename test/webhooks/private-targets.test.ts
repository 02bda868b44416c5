// While WEBHOOK_ALLOW_PRIVATE_TARGETS is on, the service says so when it starts (CONTRACT §27): one JSON log line at
// `warn` naming the setting, so a development setting left on in production shows in the logs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startService } from '../../src/service.js';

/** Starts and stops the service with this setting; returns the JSON lines it logged. */
async function linesOfAStart(allowPrivate: boolean): Promise<Record<string, unknown>[]> {
  const dir = mkdtempSync(join(tmpdir(), 'carshare-private-'));
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  const config = loadConfig({
    PORT: '0',
    HTTP_PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dir,
    DATABASE_URL: inject('databaseUrl'),
    OPS_EMAIL: 'ops@example.com',
    OPS_PASSWORD: 'operator passphrase for tests',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: String(allowPrivate),
  });
  const service = await startService({
    config,
    log: pino({ level: 'info' }, sink),
    timers: false,
    webhooks: false,
  });
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
  return lines;
}

describe('WEBHOOK_ALLOW_PRIVATE_TARGETS', () => {
  it('is named by a warn line when the service starts with it on, and only then', async () => {
    const on = (await linesOfAStart(true)).filter((l) => l.setting === 'WEBHOOK_ALLOW_PRIVATE_TARGETS');
    expect(on).toEqual([
      expect.objectContaining({
        level: 40,
        msg: expect.stringContaining('WEBHOOK_ALLOW_PRIVATE_TARGETS is on'),
      }),
    ]);
    const off = await linesOfAStart(false);
    expect(off.filter((l) => JSON.stringify(l).includes('WEBHOOK_ALLOW_PRIVATE_TARGETS'))).toEqual([]);
  }, 60_000);
});
