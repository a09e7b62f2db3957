import 'reflect-metadata';
import { Command } from 'commander';
import * as commands from './commands';
import { createRuntime, type CliRuntime } from './runtime';

/** A command group: a module under `./commands`, listed in `./commands/index.ts`. */
export interface CliCommand {
  register(program: Command, runtime: CliRuntime): void;
}

const groups: Record<string, CliCommand> = commands;

/** The `leadnet` program with every command group registered. */
export function buildProgram(runtime: CliRuntime = createRuntime(), json = false): Command {
  const program = new Command('leadnet')
    .description('Administer a leadnet service: database, demo data, users and API keys.\nThe database is DATABASE_URL, else the embedded one of `npm start` (DATA_DIR, EMBEDDED_PG_PORT).')
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
