// `npm run admin` as an operator runs it: usage and exit 2 for a wrong call, refusals in the API's error shape.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, inject, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

function admin(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn('npm', ['run', '--silent', 'admin', '--', ...args], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/root',
        DATABASE_URL: inject('databaseUrl'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += String(d);
    });
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    child.once('exit', (code) => done({ code, stdout, stderr }));
  });
}

describe('npm run admin', () => {
  it('prints the usage and exits 2 with no command, an unknown command or an unknown option', async () => {
    for (const args of [
      [],
      ['make-coffee'],
      ['create-user', '--username', 'a@example.com', '--colour', 'red'],
    ]) {
      const r = await admin(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('npm run admin -- create-user --username U --password P [--ops]');
      expect(r.stderr).toContain('npm run admin -- create-client --name N');
      expect(r.stdout).toBe('');
    }
  }, 180_000);

  it('refuses bad input with the API’s ErrorCode, FieldName and Message, and exits 1', async () => {
    const r = await admin('create-user', '--username', 'not-an-email', '--password', 'short');
    expect(r.code).toBe(1);
    const body = JSON.parse(r.stderr.trim());
    expect(body).toMatchObject({ ErrorCode: expect.any(String), Message: expect.any(String) });
    expect(body.Errors.length).toBeGreaterThan(0);
    for (const e of body.Errors) {
      expect(Object.keys(e).sort()).toEqual(expect.arrayContaining(['ErrorCode', 'FieldName', 'Message']));
      expect(e).not.toHaveProperty('code');
      expect(e).not.toHaveProperty('field');
      expect(e.FieldName).toMatch(/^[A-Z]/);
    }
    expect(body.Errors.map((e: { FieldName: string }) => e.FieldName)).toContain('Username');
    expect(body.Message).toBe(body.Errors[0].Message);
  }, 180_000);
});
