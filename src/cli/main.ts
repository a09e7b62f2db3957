import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import * as commands from './commands';
import { createRuntime, type CliRuntime } from './runtime';

/** A command group: a module under `./commands`, listed in `./commands/index.ts`. */
export interface CliCommand {
  register(program: Command, runtime: CliRuntime): void;
}

const groups: Record<string, CliCommand> = commands;

/** The package's version (the nearest package.json above this file, in src/ or dist/), for `leadnet --version`. */
export function version(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')).version;
  }
  return 'unknown';
}

/** The `leadnet` program with every command group registered. */
export function buildProgram(runtime: CliRuntime = createRuntime(), json = false): Command {
  const program = new Command('leadnet')
    .description('Administer a leadnet service: database, demo data, users and API keys.\nThe database is DATABASE_URL, else the embedded one of `npm start` (DATA_DIR, EMBEDDED_PG_PORT).')
    .version(version(), '-V, --version', 'print the version of leadnet')
    .configureOutput({
      outputError: (text, write) => write(json ? `${JSON.stringify({ error: { code: 'USAGE', message: text.replace(/^error: /, '').trim() } })}\n` : text),
    });
  if (!json) program.showHelpAfterError('(run with --help for usage)');
  for (const group of Object.values(groups)) group.register(program, runtime);
  return program;
}

/** Runs the command line; exit status 0 on success, 1 on any error (message on stderr). */
export async function run(argv: string[] = process.argv): Promise<void> {
  await buildProgram(createRuntime(), argv.includes('--json')).parseAsync(argv);
}
