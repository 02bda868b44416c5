// The documented GraphQL GET works as printed: the curl from /api/openapi.json (what /docs renders) and README.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';

let s: TestService;
let project: string;
beforeAll(async () => {
  s = await startTestService();
  // A project folder as after `npm start`: the self-signed certificate in .data/tls.
  project = mkdtempSync(join(tmpdir(), 'carshare-curl-'));
  mkdirSync(join(project, '.data', 'tls'), { recursive: true });
  writeFileSync(join(project, '.data', 'tls', 'localhost.crt'), s.service.cert);
});
afterAll(async () => {
  await s.close();
  rmSync(project, { recursive: true, force: true });
});

const curlIn = (text: string) => /curl -G [^\n`]+/.exec(text)?.[0];

/** Runs a shell command without blocking: the service answering it lives in this process. */
function sh(command: string, cwd: string): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile('sh', ['-c', `${command} --silent --show-error --max-time 60`], { cwd }, (err, stdout, stderr) =>
      done({ status: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('GraphQL over GET, as documented', () => {
  it('the curl in the OpenAPI description answers 200 with data; without the header CSRF prevention refuses', async () => {
    const doc = (await (await s.fetch('/api/openapi.json')).json()) as { info: { description: string } };
    const curl = curlIn(doc.info.description);
    expect(curl).toContain(`${s.origin}/graphql`);
    const r = await sh(curl!, project);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ data: { __typename: 'Query' } });

    const plain = await s.fetch(`/graphql?query=${encodeURIComponent('{__typename}')}`);
    expect(plain.status).toBe(400);
  });

  it('README gives the same command next to the GraphQL endpoint', async () => {
    const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');
    const curl = curlIn(readme);
    expect(curl).toBe(
      "curl -G --cacert .data/tls/localhost.crt -H 'apollo-require-preflight: true' --data-urlencode 'query={__typename}' https://localhost:8443/graphql",
    );
    const local = curl!.replace('https://localhost:8443', s.origin);
    const r = await sh(local, project);
    expect(JSON.parse(r.stdout)).toEqual({ data: { __typename: 'Query' } });
  });
});
