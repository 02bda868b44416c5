// Structured JSON logs on stdout (one line per request, see app.ts). Secrets are redacted by path.
import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger };

/** Lines held back longer than this are written at once rather than at the end of the turn. */
const MAX_PENDING = 64 * 1024;

/**
 * Standard output, written once per turn of the event loop: every line logged during a turn goes out in one
 * write at its end. A write per line made each request's log line a system call of its own (about a tenth of a
 * 304's time in the S3 profile, test/bench). A line waits at most for the end of the turn that logged it, and what
 * is pending when the process exits (process.exit included) is written synchronously first.
 */
function stdoutByTurn(): DestinationStream {
  const out = pino.destination({ dest: 1, sync: true });
  let pending = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending === '') return;
    const text = pending;
    pending = '';
    out.write(text);
  };
  process.once('exit', flush);
  return {
    write(line: string) {
      pending += line;
      if (pending.length >= MAX_PENDING) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
  };
}

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

let stdout: DestinationStream | undefined;

export function createLogger(level: string): Logger {
  // One for the process, however many loggers: lines keep their order, and one exit hook writes what is pending.
  stdout ??= stdoutByTurn();
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
    stdout,
  );
}
