// The HTTPS certificate: TLS_CERT/TLS_KEY when given, else a self-signed `localhost` one made once in DATA_DIR.
// Other car share hosts' certificates are issued by the local CA (src/local-ca.ts).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';

export interface Certificate {
  key: string;
  cert: string;
  /** Where the certificate lives, so clients can be pointed at it (NODE_EXTRA_CA_CERTS). */
  certPath: string;
}

/** Where the self-signed certificate of a default start lives. */
export const selfSignedCertPath = (dataDir: string): string => join(dataDir, 'tls', 'localhost.crt');

/**
 * The same file as pages show it: relative to the folder the service runs in (the project folder) when it is
 * inside it, so that no page shows where the server is installed.
 */
export function selfSignedCertShown(dataDir: string): string {
  const absolute = resolve(selfSignedCertPath(dataDir));
  const shown = relative(process.cwd(), absolute);
  return shown !== '' && !shown.startsWith('..') && !isAbsolute(shown) ? shown : selfSignedCertPath(dataDir);
}

export async function loadCertificate(opts: {
  dataDir: string;
  certFile?: string | undefined;
  keyFile?: string | undefined;
}): Promise<Certificate> {
  if (opts.certFile && opts.keyFile)
    return {
      cert: readFileSync(opts.certFile, 'utf8'),
      key: readFileSync(opts.keyFile, 'utf8'),
      certPath: opts.certFile,
    };
  const dir = join(opts.dataDir, 'tls');
  const certPath = selfSignedCertPath(opts.dataDir);
  const keyPath = join(dir, 'localhost.key');
  if (existsSync(certPath) && existsSync(keyPath))
    return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8'), certPath };
  // Loaded only to make the certificate, once per data directory: its X.509 code holds ~3 MB of heap.
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 825 * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(keyPath, pems.private, { mode: 0o600 });
  writeFileSync(certPath, pems.cert);
  return { cert: pems.cert, key: pems.private, certPath };
}
