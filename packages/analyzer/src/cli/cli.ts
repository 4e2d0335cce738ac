#!/usr/bin/env node
/** The `dftracer` bin: runs the command line and turns any error into one line on stderr. */
import { describeError, main } from './main.js';

process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0); // `dftracer … | head`
});
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    const { message, code } = describeError(e);
    if (message) process.stderr.write(`dftracer: ${message}\n`);
    if (process.env.DFTRACER_DEBUG && e instanceof Error) process.stderr.write(`${e.stack}\n`);
    process.exitCode = code;
  },
);
