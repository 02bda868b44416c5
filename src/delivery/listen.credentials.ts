// What `npm run webhooks -- listen` reaches the service with: the certificate of a default start, a client-credentials
// token allowed to read events, and the signing secret it keeps from one run to the next.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type Agent, fetch } from 'undici';
import type { Config } from '../config.js';
import { selfSignedCertPath } from '../tls.js';
import { generateSecret, parseSecret } from '../webhooks/secret.js';

/** The signing secret, kept in the data folder so that a receiver configured once keeps verifying across runs. */
export function listenSecret(dataDir: string): string {
  const file = join(dataDir, 'webhooks', 'listen-secret');
  try {
    const kept = parseSecret(readFileSync(file, 'utf8'));
    if (kept) return kept;
  } catch {}
  const secret = generateSecret();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** The certificate a default start made, which the service is reached with. */
export function selfSignedCertificate(dataDir: string): string {
  const file = selfSignedCertPath(dataDir);
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new Error(
      `${file} does not exist: start the service (npm start) from this folder first, so it makes its certificate`,
    );
  }
}

/** A client-credentials token allowed to read events. */
export async function tokenOf(
  config: Pick<Config, 'PUBLIC_URL'>,
  dispatcher: Agent,
  client: { id: string; secret: string },
) {
  const r = await fetch(`${config.PUBLIC_URL}/api/oauth/token`, {
    method: 'POST',
    dispatcher,
    headers: {
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'webhooks:read' }).toString(),
  });
  const body = (await r.json().catch(() => ({}))) as {
    access_token?: string;
    error?: string;
    error_description?: string;
  };
  if (!r.ok || !body.access_token)
    throw new Error(
      `the token request was refused (${r.status} ${body.error ?? ''}: ${body.error_description ?? ''})`,
    );
  return body.access_token;
}
