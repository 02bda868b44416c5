// A TCP port nobody listens on right now, for a service that must know its port before it starts (its issuer
// and Location headers name it). Another process could take it in between; on loopback in a test run none does.
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}
