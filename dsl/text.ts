// Offsets <-> line and column. The AST keeps offsets; people and editors want lines.

export interface Position {
  /** 0-based line. */
  line: number;
  /** 0-based column in UTF-16 code units (as LSP counts by default). */
  character: number;
}

export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) {
      if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
    }
  }

  position(offset: number): Position {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: offset - this.starts[lo] };
  }

  offset(position: Position): number {
    if (position.line >= this.starts.length) return this.text.length;
    const start = this.starts[Math.max(0, position.line)];
    const nextStart = position.line + 1 < this.starts.length ? this.starts[position.line + 1] : this.text.length + 1;
    return Math.min(start + Math.max(0, position.character), nextStart - 1, this.text.length);
  }

  get lineCount(): number {
    return this.starts.length;
  }
}
