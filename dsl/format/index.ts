// The rlx formatter: one canonical layout (printer.ts), and the same as text edits for editors.
export { format, lineEndingOf, type FormatOptions, type FormatResult } from './format.js';
export { formatEdits } from './edits.js';
