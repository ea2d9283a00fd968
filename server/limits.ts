// The largest file the server analyses. Parsing and checking a 150 KB file takes about 85 ms
// (bench/dsl.ts), and more than proportionally longer beyond (a 7 MB file took 40 s to parse);
// typing in a file re-checks it on every keystroke, so a 10 MB file held a completion for 80 s. Real specs are far smaller (the benchmark's
// 5,000-line file is 150 KB); a bigger file is almost always generated or pasted by mistake.
// Such a file is analysed as if it were empty, and says so with one warning diagnostic (and a
// message when it is opened); its requests get empty answers, never edits.
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver';
import * as path from 'node:path';

/** 1 MiB of text (UTF-16 code units, as editors count), about 30,000 lines of rlx. */
export const MAX_DOCUMENT_CHARS = 1024 * 1024;

export function isTooLarge(text: string): boolean {
  return text.length > MAX_DOCUMENT_CHARS;
}

export function tooLargeMessage(filePath: string, chars: number): string {
  const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MB`;
  return `${path.basename(filePath)} is ${mb(chars)}; the rlx language server reads files up to ${mb(MAX_DOCUMENT_CHARS)}, `
    + 'so it gives no diagnostics, completion or navigation for this one. Split it into smaller files that import one another.';
}

export function tooLargeDiagnostic(filePath: string, chars: number): Diagnostic {
  const start = { line: 0, character: 0 };
  return { range: { start, end: start }, severity: DiagnosticSeverity.Warning, code: 'file-too-large', source: 'rlx', message: tooLargeMessage(filePath, chars) };
}

/**
 * Diagnostics the server keeps and publishes per file. A file of 100k erroring declarations
 * (under MAX_DOCUMENT_CHARS) published 200k diagnostics per keystroke: 50 MB of JSON, 3.4 s and
 * 1.4 GB. Nobody reads past the first few hundred; one last diagnostic counts the rest.
 */
export const MAX_DIAGNOSTICS_PER_FILE = 1000;
