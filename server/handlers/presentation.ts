// What the editor shows beside the text: hover (markdown or plain text, as the client renders),
// semantic colouring and inlay hints. All read names only, so they answer from the model
// without waiting for a re-check (editors ask for them after every keystroke).
import { hover } from '../features/hover.js';
import { inlayHints } from '../features/inlay-hints.js';
import { semanticTokens } from '../features/semantic-tokens.js';
import { asKind } from '../markup.js';
import type { Session } from './session.js';

export function registerPresentation(session: Session): void {
  const { connection } = session;
  connection.onHover(session.onDocument('hover', null, (doc, p, support) => {
    const found = hover(doc, p.position);
    return found && { ...found, contents: asKind(support.hover, found.contents) };
  }, 'model'));
  connection.languages.semanticTokens.on(session.onDocument('semantic tokens', { data: [] }, (doc) => semanticTokens(doc), 'model'));
  connection.languages.inlayHint.on(session.onDocument('inlay hints', [], (doc, p) => inlayHints(doc, p.range), 'model'));
}
