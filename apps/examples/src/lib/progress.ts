/** A one-line progress bar on a terminal; on a pipe, only the finished line (logs stay short). */
export class Progress {
  private readonly tty = Boolean(process.stdout.isTTY);

  constructor(
    private readonly label: string,
    private readonly total: number,
  ) {}

  update(n: number, note = ''): void {
    if (!this.tty) return;
    const width = 24;
    const filled = Math.round((width * n) / this.total);
    process.stdout.write(`\r${this.label}  [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${n}/${this.total}  ${note}\x1b[K`);
  }

  done(note = ''): void {
    process.stdout.write(`${this.tty ? '\r' : ''}${this.label}  ${this.total}/${this.total} batches  ${note}${this.tty ? '\x1b[K' : ''}\n`);
  }
}
