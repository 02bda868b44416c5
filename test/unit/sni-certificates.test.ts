// CONTRACT §19 "Certificates": without TLS_CERT, a car share host other than `localhost` gets at its first
// handshake a certificate issued by the local CA in DATA_DIR/tls/ca.crt, which verifies it; any other name gets
// the default (self-signed `localhost`) certificate.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls, { type PeerCertificate } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localCaCertPath, sniCertificates } from '../../src/local-ca.js';
import { loadCertificate, selfSignedCertPath } from '../../src/tls.js';

const isCarShareHost = (h: string) => h.endsWith('.cars.test');

interface Handshake {
  authorized: boolean;
  error: string | undefined;
  cert: PeerCertificate;
}

function handshake(port: number, servername: string, ca: string | Buffer): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername, ca, rejectUnauthorized: false }, () => {
      const result = {
        authorized: socket.authorized,
        error: socket.authorizationError?.toString(),
        cert: socket.getPeerCertificate(),
      };
      socket.end();
      resolve(result);
    });
    socket.on('error', reject);
  });
}

describe('certificates for car share hosts', () => {
  let dataDir: string;
  let server: https.Server;
  let port: number;
  let ca: Buffer;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'carshare-sni-'));
    const defaults = await loadCertificate({ dataDir });
    server = https.createServer({
      key: defaults.key,
      cert: defaults.cert,
      SNICallback: sniCertificates({ dataDir, isCarShareHost }),
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('issues a car share host a certificate for its name that the local CA verifies', async () => {
    // The CA is made on the first need, so read after the first handshake.
    const first = await handshake(port, 'a.cars.test', readFileSync(selfSignedCertPath(dataDir)));
    ca = readFileSync(localCaCertPath(dataDir));
    expect(statSync(join(dataDir, 'tls', 'ca.key')).mode & 0o777).toBe(0o600);
    expect(first.cert.subjectaltname).toBe('DNS:a.cars.test');

    const a = await handshake(port, 'a.cars.test', ca);
    expect(a).toMatchObject({ authorized: true, error: undefined });
    expect(a.cert.subjectaltname).toBe('DNS:a.cars.test');
    expect(a.cert.fingerprint256).toBe(first.cert.fingerprint256);
  });

  it('gives another host its own certificate, names compared case-insensitively without a trailing dot', async () => {
    const a = await handshake(port, 'a.cars.test', ca);
    const b = await handshake(port, 'B.Cars.Test.', ca);
    expect(b.authorized).toBe(true);
    expect(b.cert.subjectaltname).toBe('DNS:b.cars.test');
    expect(b.cert.fingerprint256).not.toBe(a.cert.fingerprint256);
  });

  it('gives unknown hosts, localhost and IP addresses the default certificate, which the CA does not verify', async () => {
    const selfSigned = readFileSync(selfSignedCertPath(dataDir));
    for (const name of ['unknown.example', 'localhost', 'x,o=y.cars.test']) {
      const other = await handshake(port, name, ca);
      expect(other.authorized, name).toBe(false);
      expect(other.cert.subject.CN, name).toBe('localhost');
      const trusted = await handshake(port, name, selfSigned);
      expect(trusted.cert.subjectaltname, name).toContain('DNS:localhost');
    }
    // No SNI at all (an IP address is never sent as a server name).
    const bare = await new Promise<PeerCertificate>((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port, ca, rejectUnauthorized: false }, () => {
        resolve(socket.getPeerCertificate());
        socket.end();
      });
      socket.on('error', reject);
    });
    expect(bare.subject.CN).toBe('localhost');
  });

  it('keeps one CA for the data directory: another process (callback) reuses it', async () => {
    const again = https.createServer({
      ...(await loadCertificate({ dataDir })),
      SNICallback: sniCertificates({ dataDir, isCarShareHost }),
    });
    await new Promise<void>((resolve) => again.listen(0, '127.0.0.1', resolve));
    try {
      const c = await handshake((again.address() as AddressInfo).port, 'c.cars.test', ca);
      expect(c.authorized).toBe(true);
      expect(c.cert.subjectaltname).toBe('DNS:c.cars.test');
      expect(readFileSync(localCaCertPath(dataDir))).toEqual(ca);
    } finally {
      await new Promise((resolve) => again.close(resolve));
    }
  });
});

describe('the CA made ahead', () => {
  it('is in place before any handshake when asked for, and is the one that then issues', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'carshare-sni-ahead-'));
    try {
      const sni = sniCertificates({ dataDir, isCarShareHost, maxHosts: 1 });
      expect(await sni.localCa()).toBe(localCaCertPath(dataDir));
      const ca = readFileSync(localCaCertPath(dataDir));
      const server = https.createServer({ ...(await loadCertificate({ dataDir })), SNICallback: sni });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const port = (server.address() as AddressInfo).port;
        const a = await handshake(port, 'a.cars.test', ca);
        expect(a.authorized).toBe(true);
        expect((await handshake(port, 'a.cars.test', ca)).cert.fingerprint256).toBe(a.cert.fingerprint256);
        // One host kept (maxHosts 1): b's certificate pushes a's out, and a's next one is issued anew.
        expect((await handshake(port, 'b.cars.test', ca)).authorized).toBe(true);
        const again = await handshake(port, 'a.cars.test', ca);
        expect(again.authorized).toBe(true);
        expect(again.cert.fingerprint256).not.toBe(a.cert.fingerprint256);
        expect(readFileSync(localCaCertPath(dataDir))).toEqual(ca);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('names never issued for', () => {
  it('are localhost and IP addresses, even when called a car share host', async () => {
    const sni = sniCertificates({ dataDir: '/nonexistent', isCarShareHost: () => true });
    for (const name of ['localhost', 'LOCALHOST.', '127.0.0.1', '::1', '']) {
      const given = await new Promise<unknown>((resolve) => sni(name, (err, ctx) => resolve(err ?? ctx)));
      expect(given, name).toBeUndefined();
    }
  });
});

describe('the local CA made by processes starting together', () => {
  it('is one CA, whichever links it first', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'carshare-sni-race-'));
    try {
      const defaults = await loadCertificate({ dataDir });
      const servers = Array.from({ length: 4 }, () =>
        https.createServer({ ...defaults, SNICallback: sniCertificates({ dataDir, isCarShareHost }) }),
      );
      await Promise.all(
        servers.map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))),
      );
      try {
        // Each makes the CA at once, none having seen another's; all must end verifying with the one on disk.
        const seen = await Promise.all(
          servers.map((s) =>
            handshake((s.address() as AddressInfo).port, 'a.cars.test', defaults.cert).then((h) => h.cert),
          ),
        );
        const ca = readFileSync(localCaCertPath(dataDir));
        expect(seen.every((cert) => cert.subjectaltname === 'DNS:a.cars.test')).toBe(true);
        for (const s of servers) {
          const h = await handshake((s.address() as AddressInfo).port, 'a.cars.test', ca);
          expect(h).toMatchObject({ authorized: true, error: undefined });
        }
      } finally {
        await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
