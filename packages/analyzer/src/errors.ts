/** A mistake by the user (bad flag, missing file, not a trace): printed as one line, never a stack. */
export class UserError extends Error {
  /** Process exit code: 2 for usage errors, 1 for everything else. */
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = 'UserError';
    this.exitCode = exitCode;
  }
}

/** Wrong command-line usage (exit code 2). */
export class UsageError extends UserError {
  constructor(message: string) {
    super(message, 2);
    this.name = 'UsageError';
  }
}
