// Features name files by the URI derived from their path (context.ts's pathToUri). A client may
// know an open document by another spelling of the same file (VS Code writes `c%3A` for `c:`
// and escapes more characters) or by a URI that is no file at all (an untitled buffer). Results
// are mapped back to the client's URIs at the edge, so they point at the documents it has open.

/** `value` with every `uri`/`targetUri` field and every `changes` key found in `remap` replaced. */
export function remapUris<T>(value: T, remap: ReadonlyMap<string, string>): T {
  if (remap.size === 0) return value;
  return walk(value, remap) as T;
}

function walk(value: unknown, remap: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => walk(v, remap));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if ((key === 'uri' || key === 'targetUri') && typeof v === 'string') {
      out[key] = remap.get(v) ?? v;
    } else if (key === 'changes' && v !== null && typeof v === 'object' && !Array.isArray(v)) {
      // WorkspaceEdit.changes: { [uri]: TextEdit[] }
      out[key] = Object.fromEntries(Object.entries(v).map(([uri, edits]) => [remap.get(uri) ?? uri, edits]));
    } else {
      out[key] = walk(v, remap);
    }
  }
  return out;
}
