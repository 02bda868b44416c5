// The local CA of the HTTPS listener (src/tls.ts makes the self-signed `localhost` certificate and reads TLS_CERT).
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  randomBytes,
  X509Certificate,
} from 'node:crypto';
import { link, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { createSecureContext, type SecureContext } from 'node:tls';
import { promisify } from 'node:util';
import type { Logger } from './shared/log.js';

const generateKeyPairAsync = promisify(generateKeyPair);

// Car share hosts other than `localhost` (CONTRACT §19 "Certificates"): without TLS_CERT, each gets at its first
// handshake naming it (SNI) a certificate issued by a local CA, made once in DATA_DIR beside the self-signed one.

/** The local CA that issues car share hosts' certificates; its key is `ca.key` beside it. */
export const localCaCertPath = (dataDir: string): string => join(dataDir, 'tls', 'ca.crt');

/** node's `SNICallback`: no context given means the server's default one (the `localhost` certificate). */
export type SniCallback = (servername: string, cb: (err: Error | null, ctx?: SecureContext) => void) => void;

export interface SniCertificates extends SniCallback {
  /**
   * Makes the local CA now if it is not there yet, and answers where its certificate is: for callers that want the
   * file in place before any handshake (a client reads `--cacert` or NODE_EXTRA_CA_CERTS before it connects).
   */
  localCa(): Promise<string>;
}

export interface SniOptions {
  dataDir: string;
  /** Whether a host (lowercase, without a trailing dot) is a car share's: the car share registry answers. */
  isCarShareHost(host: string): boolean;
  log?: Pick<Logger, 'info' | 'warn'> | undefined;
  /** How many hosts' certificates are kept in memory, the least recently used going first. */
  maxHosts?: number;
}

const DAY_MS = 86_400_000;
const CA_VALID_MS = 3652 * DAY_MS;
const LEAF_VALID_MS = 365 * DAY_MS;
/** A certificate served this close to its end is issued anew for the next handshake. */
const LEAF_RENEW_MS = 30 * DAY_MS;
/** Validity starts this long before issue, for clients whose clock is a little behind. */
const CLOCK_SKEW_MS = 3_600_000;
/** A DNS name: labels of letters, digits and inner hyphens (so nothing else can reach a certificate's subject). */
const DNS_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

interface LocalCa {
  key: string;
  cert: string;
}

interface Issued {
  context: SecureContext;
  renewAt: number;
}

/**
 * Certificates for car share hosts, issued by the local CA on first need and kept (bounded) for the process. A
 * host that is no car share's, an IP address, `localhost`, or a failure to issue gets the default certificate.
 */
export function sniCertificates(opts: SniOptions): SniCertificates {
  const maxHosts = opts.maxHosts ?? 1000;
  const issued = new Map<string, Promise<Issued>>();
  let ca: Promise<LocalCa> | undefined;
  const localCa = (): Promise<LocalCa> => {
    ca ??= loadOrCreateCa(opts.dataDir, opts.log).catch((err: unknown) => {
      ca = undefined;
      throw err;
    });
    return ca;
  };

  const certificateOf = (host: string): Promise<Issued> => {
    const known = issued.get(host);
    if (known) {
      // Most recently used last: the first key is the one to drop.
      issued.delete(host);
      issued.set(host, known);
      return known;
    }
    const made = localCa().then((authority) => issueFor(host, authority));
    issued.set(host, made);
    if (issued.size > maxHosts) issued.delete(issued.keys().next().value!);
    return made;
  };

  const callback: SniCallback = (servername, cb) => {
    const host = servername.toLowerCase().replace(/\.$/, '');
    let wanted = false;
    try {
      wanted = host !== 'localhost' && isIP(host) === 0 && DNS_NAME.test(host) && opts.isCarShareHost(host);
    } catch (err) {
      opts.log?.warn({ err, host }, 'could not tell whether a TLS server name is a car share host');
    }
    if (!wanted) {
      cb(null);
      return;
    }
    const pending = certificateOf(host);
    pending.then(
      (cert) => {
        if (Date.now() >= cert.renewAt && issued.get(host) === pending) issued.delete(host);
        cb(null, cert.context);
      },
      (err: unknown) => {
        if (issued.get(host) === pending) issued.delete(host);
        opts.log?.warn(
          { err, host },
          'could not issue a certificate for a car share host: serving the default',
        );
        cb(null);
      },
    );
  };
  return Object.assign(callback, { localCa: () => localCa().then(() => localCaCertPath(opts.dataDir)) });
}

async function issueFor(host: string, ca: LocalCa): Promise<Issued> {
  const { generate } = await import('selfsigned');
  const notBefore = new Date(Date.now() - CLOCK_SKEW_MS);
  const notAfter = new Date(notBefore.getTime() + LEAF_VALID_MS);
  const pems = await generate([{ name: 'commonName', value: host }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: notBefore,
    notAfterDate: notAfter,
    ca,
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: host }] },
    ],
  });
  return {
    context: createSecureContext({ key: pems.private, cert: pems.cert }),
    renewAt: notAfter.getTime() - LEAF_RENEW_MS,
  };
}

/**
 * The local CA of a data directory, made on first need. Its key is what identifies it: the first process to link
 * its key in place wins, and every process then uses the key that is there; the certificate is made from that key
 * (its subject names the key) and linked the same way, so processes starting together end with one CA.
 */
async function loadOrCreateCa(dataDir: string, log: SniOptions['log']): Promise<LocalCa> {
  const dir = join(dataDir, 'tls');
  const certPath = localCaCertPath(dataDir);
  const keyPath = join(dir, 'ca.key');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  let key = await readIfThere(keyPath);
  if (key === undefined) {
    const { privateKey } = await generateKeyPairAsync('ec', {
      namedCurve: 'P-256',
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    await linkFirst(keyPath, privateKey, 0o600);
    key = await readFile(keyPath, 'utf8');
  }
  const present = await readIfThere(certPath);
  if (present !== undefined && isCaOf(present, key)) return { key, cert: present };
  const made = await caCertificate(key);
  if (present === undefined) await linkFirst(certPath, made, 0o644);
  else {
    // Not the certificate of this key (the key was removed and made anew), or expired: replaced.
    log?.warn(
      { caFile: certPath },
      'the local CA certificate does not match its key or has expired: replacing it',
    );
    await replaceWith(certPath, made, 0o644);
  }
  const cert = await readFile(certPath, 'utf8');
  if (!isCaOf(cert, key)) throw new Error(`${certPath} is not the certificate of ${keyPath}`);
  if (cert === made)
    log?.info({ caFile: certPath }, 'made the local CA that issues car share hosts’ certificates');
  return { key, cert };
}

async function caCertificate(key: string): Promise<string> {
  const { generate } = await import('selfsigned');
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  const publicKey = createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
  // Named after its key: two certificates made from one key (processes starting together) are interchangeable,
  // and two deployments' CAs trusted side by side are never confused.
  const id = createHash('sha256').update(spki).digest('hex').slice(0, 12);
  const notBefore = new Date(Date.now() - CLOCK_SKEW_MS);
  const pems = await generate(
    [
      { name: 'commonName', value: `Carshare local CA ${id}` },
      { name: 'organizationName', value: 'Carshare' },
    ],
    {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      keyPair: { privateKey: key, publicKey },
      notBeforeDate: notBefore,
      notAfterDate: new Date(notBefore.getTime() + CA_VALID_MS),
      extensions: [
        { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      ],
    },
  );
  return pems.cert;
}

/** A CA certificate, valid for a while yet, whose public key is the key's. */
function isCaOf(cert: string, key: string): boolean {
  try {
    const x509 = new X509Certificate(cert);
    return (
      x509.ca &&
      x509.checkPrivateKey(createPrivateKey(key)) &&
      Date.parse(x509.validTo) > Date.now() + LEAF_VALID_MS
    );
  } catch {
    return false;
  }
}

async function readIfThere(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes a file whole under a temporary name, then links it into place unless one is there already. */
async function linkFirst(path: string, content: string, mode: number): Promise<void> {
  const temp = await writeTemp(path, content, mode);
  try {
    await link(temp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

async function replaceWith(path: string, content: string, mode: number): Promise<void> {
  const temp = await writeTemp(path, content, mode);
  try {
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
}

async function writeTemp(path: string, content: string, mode: number): Promise<string> {
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temp, content, { mode, flag: 'wx' });
  return temp;
}
