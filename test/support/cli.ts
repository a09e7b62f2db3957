// `leadnet`, the command line, run as a process the way an operator runs it.
import { execFile } from 'node:child_process';
import path from 'node:path';

/** The bin `npx leadnet` runs. */
export const LEADNET_BIN = path.join(__dirname, '..', '..', 'bin', 'leadnet.js');

export interface CliRun {
  /** The exit status; 1 when the process did not start or was killed (its timeout included). */
  code: number;
  /** The signal that killed it, or null. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** This process's environment with logs off and `env` over it (a variable set to undefined is removed). */
export function leadnetEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries({ ...process.env, LOG_LEVEL: 'silent', ...env }).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv;
}

/** Runs `leadnet ...args` to its end, in `leadnetEnv(env)`. */
export function runLeadnet(args: string[], env: Record<string, string | undefined> = {}, options: { timeout?: number; cwd?: string } = {}): Promise<CliRun> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [LEADNET_BIN, ...args],
      { env: leadnetEnv(env), cwd: options.cwd, timeout: options.timeout ?? 120_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, signal: error?.signal ?? null, stdout, stderr }),
    ),
  );
}
