// Reading what `rlx train` prints (cli/commands/train.ts): stderr carries messages
// prefixed `rlx train: ` and, when not on a terminal, a progress line every few seconds; stdout
// the run directory of each finished run. The run directory itself is the source of truth for
// progress; these lines give the error of a trainer that failed before or outside a run.

/**
 * The error a failed trainer printed: its last `rlx train: ` message with the lines after it,
 * else (a crash of the runtime that runs it: a missing native module...) its last error line.
 * Only what follows the last progress line or clean end counts.
 */
export function trainerError(lines: readonly string[]): string | undefined {
  const reported = trainerMessage(lines);
  if (reported !== undefined) return reported;
  const tail = failureTail(lines);
  const error = [...tail].reverse().find((l) => /error/i.test(l));
  return error?.trim() ?? tail.at(-1)?.trim();
}

/**
 * The trainer's own last `rlx train: ` message with the lines after it (a refused plan lists its
 * problems on those lines): the trainer ran and said why. Undefined when it did not say.
 */
export function trainerMessage(lines: readonly string[]): string | undefined {
  const tail = failureTail(lines);
  for (let i = tail.length - 1; i >= 0; i--) {
    if (/^rlx( [a-z]+)?: /.test(tail[i])) {
      return tail
        .slice(i)
        .map((l, j) => (j === 0 ? l.replace(/^rlx( [a-z]+)?: /, '') : l))
        .join('\n');
    }
  }
  return undefined;
}

/** The non-empty lines after the last progress line or clean end. */
function failureTail(lines: readonly string[]): string[] {
  let from = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (isProgress(lines[i]) || isInfo(lines[i])) {
      from = i + 1;
      break;
    }
  }
  return lines.slice(from).filter((l) => l.trim() !== '');
}

function isProgress(line: string): boolean {
  return /^rlx train \S+\/\S+ steps/.test(line);
}

/** Messages a healthy trainer prints, which never explain a failure. */
function isInfo(line: string): boolean {
  return (
    /^rlx train: (finished|stopped) at step \d+/.test(line) ||
    /^rlx train: (SIGINT|SIGTERM)/.test(line) ||
    /^rlx train: .+, seed \d+$/.test(line) || // a run starts
    /^rlx train: (resuming|resumed|device) /.test(line)
  );
}

/** Splits appended text into whole lines, keeping a partial last line for the next call. */
export class LineSplitter {
  private pending = '';

  push(text: string): string[] {
    const lines = (this.pending + text).split(/\r?\n/);
    this.pending = lines.pop() ?? '';
    return lines;
  }

  flush(): string[] {
    const rest = this.pending;
    this.pending = '';
    return rest === '' ? [] : [rest];
  }
}
