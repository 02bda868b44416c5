// Structured JSON logs on stdout (one line per request, see app.ts). Secrets are redacted by path.
import { type Logger, pino } from 'pino';
import { type LogOutput, logOutput } from './log.output.js';

export type { Logger, LogOutput };
export { logOutput };

/** pino's ISO time, formatted once per millisecond: many lines share one under load. */
function isoTimeByMs(): () => string {
  let ms = -1;
  let field = '';
  return () => {
    const now = Date.now();
    if (now !== ms) {
      ms = now;
      field = `,"time":"${new Date(now).toISOString()}"`;
    }
    return field;
  };
}

let stdout: LogOutput | undefined;

/** Waits until every line logged so far on standard output has been written (the service's stop). */
export const flushLogs = (): Promise<void> => stdout?.flush() ?? Promise.resolve();

/** A logger on standard output, or on `output` (tests). */
export function createLogger(level: string, output?: LogOutput): Logger {
  // One for the process, however many loggers: lines keep their order, and one exit hook writes what is pending
  // (process.exit included, and the exit after an uncaught error).
  if (!output && !stdout) {
    const out = logOutput();
    process.on('exit', () => out.flushSync());
    stdout = out;
  }
  return pino(
    {
      level,
      base: { service: 'carshare' },
      timestamp: isoTimeByMs(),
      redact: {
        paths: [
          'password',
          '*.password',
          '*.currentPassword',
          'authorization',
          '*.authorization',
          'headers.authorization',
          '*.clientSecret',
          '*.secret',
        ],
        censor: '[redacted]',
      },
    },
    output ?? stdout,
  );
}
