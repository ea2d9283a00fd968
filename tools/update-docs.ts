// npm run docs: rewrites the generated reference in docs/language.md from the schema registry.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { updateDocument } from '../dsl/docgen.js';

const docPath = fileURLToPath(new URL('../../docs/language.md', import.meta.url));
const before = readFileSync(docPath, 'utf8');
const after = updateDocument(before);
if (after === before) {
  console.log('docs/language.md is up to date');
} else {
  writeFileSync(docPath, after);
  console.log('docs/language.md updated from the schema registry');
}
