// A command of the project run as an operator runs it (`npm run admin`, `npm run webhooks`, or from the sources),
// its output collected: what the command-line tests assert on.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

export const root = resolve(import.meta.dirname, '../..');

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command args` in the project's folder with only PATH, HOME and `env` set. */
export function runCommand(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<Ran> {
  return new Promise((done) => {
    const child = spawn(command, [...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += String(d);
    });
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    child.once('exit', (code) => done({ code, stdout, stderr }));
  });
}

/** `npm run --silent <script> -- args`, as README writes the commands. */
export const npmRun = (script: string, args: readonly string[], env: Record<string, string>): Promise<Ran> =>
  runCommand('npm', ['run', '--silent', script, '--', ...args], env);
