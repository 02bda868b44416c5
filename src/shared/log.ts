// Structured JSON logs on stdout (one line per request, see app.ts). Secrets are redacted by path.
import { type Logger, pino } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'carshare' },
    timestamp: pino.stdTimeFunctions.isoTime,
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
  });
}
