import Transport from 'winston-transport';

/** winston's key for a record's formatted line (triple-beam's MESSAGE). */
const MESSAGE = Symbol.for('message');

export interface BufferedOutputOptions {
  /** Where the lines go; standard output by default. */
  out?: NodeJS.WritableStream;
  /** The longest a line waits before it is written, in milliseconds. */
  flushMs?: number;
  /** Lines are written at once when this many bytes (about: UTF-16 units) wait. */
  maxBytes?: number;
}

/** Every buffered output of the process, flushed when the process exits. */
const open = new Set<BufferedOutput>();
let exitHook = false;

/** Writes every buffered output's waiting lines now: before a command writes its own output, so the order holds. */
export function flushLogs(): void {
  for (const o of open) o.flush();
}

/**
 * A winston transport that writes the lines of a short span in one write instead of one write per
 * line (what pino's sonic-boom does with `minLength`). A write to standard output is a system call
 * (synchronous for pipes and files on Linux); a busy worker logs two lines per run, and on the
 * 2-core machine a write costs ~0.1 ms of CPU. Lines wait at most `flushMs` (25 ms), or until
 * `maxBytes` (64 KiB) wait, and are written whole and in order. Every buffered output is flushed
 * on the process's `exit` (which `process.exit`, the end of the loop and an uncaught error's
 * handler all fire), and the commands flush before they write to standard error, so a fatal
 * error's last lines are kept and come before its message. A process that dies without `exit`
 * loses the lines of its last `flushMs`: killed outright (SIGKILL, including an API process the
 * fleet's primary kills after its shutdown timeout), by a signal Herald does not handle (SIGHUP,
 * SIGQUIT), or by V8 itself (out of memory, abort).
 */
export class BufferedOutput extends Transport {
  private readonly out: NodeJS.WritableStream;
  private readonly flushMs: number;
  private readonly maxBytes: number;
  private lines: string[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: BufferedOutputOptions = {}) {
    super();
    this.out = options.out ?? process.stdout;
    this.flushMs = options.flushMs ?? 25;
    this.maxBytes = options.maxBytes ?? 64 * 1024;
    open.add(this);
    if (!exitHook) {
      exitHook = true;
      process.on('exit', flushLogs);
    }
  }

  override log(info: Record<string | symbol, unknown>, next: () => void): void {
    const line = `${String(info[MESSAGE])}\n`;
    this.lines.push(line);
    this.bytes += line.length;
    if (this.bytes >= this.maxBytes) this.flush();
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flush(), this.flushMs);
      this.timer.unref();
    }
    next();
  }

  /** Writes every waiting line now, in one write. */
  flush(): void {
    if (this.timer !== undefined) { clearTimeout(this.timer); this.timer = undefined; }
    if (this.lines.length === 0) return;
    const text = this.lines.length === 1 ? this.lines[0]! : this.lines.join('');
    this.lines = [];
    this.bytes = 0;
    this.out.write(text);
  }

  override close(): void {
    this.flush();
    open.delete(this);
  }
}
