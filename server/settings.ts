// The `rlx.*` settings a client sends (workspace/configuration or didChangeConfiguration), read
// defensively: a missing or mistyped value keeps its default rather than failing a request.
import { DEFAULT_SETTINGS, type ServerSettings } from './context.js';

/** The settings section the server asks for. */
export const SETTINGS_SECTION = 'rlx';

/** `raw` is the `rlx` section: `{ inlayHints: { defaults: boolean } }`. */
export function parseSettings(raw: unknown): ServerSettings {
  const inlayHints = field(raw, 'inlayHints');
  const defaults = field(inlayHints, 'defaults');
  return {
    inlayHints: { defaults: typeof defaults === 'boolean' ? defaults : DEFAULT_SETTINGS.inlayHints.defaults },
  };
}

function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined;
}
