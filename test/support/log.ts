// A logger whose JSON lines a test reads back (what was logged, with what request id).
import { Writable } from 'node:stream';
import { type Logger, pino } from 'pino';

export function recordingLog(): { log: Logger; lines: Record<string, any>[] } {
  const lines: Record<string, any>[] = [];
  const log = pino(
    new Writable({
      write(chunk, _e, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  return { log, lines };
}
