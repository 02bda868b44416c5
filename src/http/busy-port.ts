// A start whose port is taken (most often a second `npm start` while one runs) says so in one line, before the
// database is opened, instead of failing later with a stack trace.
import { createServer } from 'node:net';

export interface PortSettings {
  HOST: string;
  PORT: number;
  HTTP_PORT: number;
}

const free = (port: number, host: string) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });

/** The one line to print when a configured port is taken, naming it and its variable; undefined when both are free. */
export async function busyPortMessage(config: PortSettings): Promise<string | undefined> {
  for (const variable of ['PORT', 'HTTP_PORT'] as const) {
    const port = config[variable];
    // Port 0 asks the system for any free port: never taken.
    if (port !== 0 && !(await free(port, config.HOST))) return inUse(port, variable);
  }
  return undefined;
}

export const inUse = (port: number | string, variable: string): string =>
  `port ${port} (${variable}) is in use — is Carshare already running? Set PORT and HTTP_PORT to use others`;

/** The same line for a listener that lost the race after the check (EADDRINUSE from listen). */
export function busyPortOf(err: unknown, config: PortSettings): string | undefined {
  const e = err as { code?: unknown; port?: unknown };
  if (e?.code !== 'EADDRINUSE') return undefined;
  return inUse(String(e.port ?? config.PORT), e.port === config.HTTP_PORT ? 'HTTP_PORT' : 'PORT');
}
