/**
 * The `dftracer` command line: validate, summarise, merge, query and export DFTracer traces, and render an HTML
 * report. User mistakes are one line on stderr (exit 2 for usage, 1 otherwise), never a stack.
 */
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError, UserError } from '../errors.js';
import { commands, type Command } from './commands.js';

function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    return pkg.version;
  } catch {
    return 'unknown';
  }
}

const MAIN_HELP = `dftracer — check, summarise and explore DFTracer traces (*.pfw, *.pfw.gz)

Usage: dftracer <command> [options] FILE… | DIR | GLOB

Commands:
${commands.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`).join('\n')}

Run "dftracer <command> --help" for a command's options.
Options: --help, --version`;

/** Parse `argv` for a command, turning parseArgs' errors into usage errors. */
export function parseCommandArgs(cmd: Command, argv: string[]) {
  try {
    return parseArgs({ args: argv, options: cmd.options as ParseArgsConfig['options'], allowPositionals: true, strict: true });
  } catch (e) {
    const msg = (e as Error).message.replace(/\. To specify a positional argument.*$/s, '');
    throw new UsageError(`${cmd.name}: ${msg.charAt(0).toLowerCase()}${msg.slice(1)}`);
  }
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const which = name === 'help' ? commands.find((c) => c.name === rest[0]) : undefined;
    process.stdout.write(`${which ? which.help : MAIN_HELP}\n`);
    return 0;
  }
  if (name === '--version' || name === '-V') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  const cmd = commands.find((c) => c.name === name);
  if (!cmd) throw new UsageError(`unknown command "${name}" (commands: ${commands.map((c) => c.name).join(', ')}; see dftracer --help)`);
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${cmd.help}\n`);
    return 0;
  }
  const { values, positionals } = parseCommandArgs(cmd, rest);
  return cmd.run(values as Record<string, string | boolean | undefined>, positionals);
}

/** One line for any error: user errors as they are, others without a stack unless DFTRACER_DEBUG. */
export function describeError(e: unknown): { message: string; code: number } {
  if (e instanceof UserError) return { message: e.message, code: e.exitCode };
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'ENOENT') return { message: `no such file or directory: ${err.path ?? err.message}`, code: 2 };
  if (err?.code === 'EACCES' || err?.code === 'EPERM') return { message: `permission denied: ${err.path ?? err.message}`, code: 1 };
  if (err?.code === 'EISDIR') return { message: `is a directory: ${err.path ?? err.message}`, code: 2 };
  if (err?.code === 'EPIPE') return { message: '', code: 0 };
  const first = String(err?.message ?? e).split('\n')[0] ?? 'unknown error';
  return { message: first, code: 1 };
}
