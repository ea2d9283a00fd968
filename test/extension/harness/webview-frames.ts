// The workbench's webviews as frames, for the harness: which are on screen, and whether their
// page is drawn yet. A webview is two frames: VS Code's host page (.../webview/browser/pre/
// index.html?id=...&extensionId=...) and, inside it, the extension's page. A panel without
// retainContextWhenHidden loses both frames when hidden and gets new ones when revealed: for a
// moment after a reveal the editor area shows nothing, then "Loading…", then the page.
import type { Frame, Page } from 'playwright-core';

export interface WebviewFrame {
  /** The extension that owns the webview (from the host page's URL). */
  extensionId: string;
  /** Whether the host frame's element is on screen (a hidden retained webview is not). */
  visible: boolean;
  /** The text of the innermost frame's body: the extension's page ('' before it loads). */
  text: string;
  /** The inner frames' URLs (pending and active frames while a page loads). */
  inner: string[];
}

const HOST_PAGE = /\/webview\/browser\/pre\/index\.html/;

export function isWebviewHost(frame: Frame): boolean {
  return HOST_PAGE.test(frame.url());
}

/** Each webview host frame of the page, with what its extension page shows. */
export async function webviewFrames(page: Page): Promise<WebviewFrame[]> {
  const found: WebviewFrame[] = [];
  for (const host of page.frames().filter(isWebviewHost)) {
    if (host.isDetached()) continue;
    const element = await host.frameElement().catch(() => undefined);
    const visible = element ? await element.isVisible().catch(() => false) : false;
    const children = host.childFrames().filter((f) => !f.isDetached());
    let text = '';
    for (const child of children) {
      const own = await child.evaluate(() => document.body?.innerText ?? '').catch(() => '');
      if (own.trim() !== '') text = own.trim();
    }
    found.push({ extensionId: new URL(host.url()).searchParams.get('extensionId') ?? '?', visible, text, inner: children.map((c) => shortUrl(c.url())) });
  }
  return found;
}

export interface DrawnReport {
  drawn: boolean;
  waitedMs: number;
  /** How many webviews the suite said are on screen (its editor groups' active webview tabs). */
  expected: number;
  /** When, after the wait began, the last webview on screen got its page frame, and some text (a placeholder counts). */
  framedMs?: number;
  textMs?: number;
  webviews: WebviewFrame[];
}

/**
 * Waits until `expected` webviews are on screen and every one shows its page (`ready` says when a page's text counts as
 * drawn: by default any text but the "Loading…" placeholder), polling; never a fixed sleep.
 * Returns what it saw last, drawn or not, and when each stage was reached, for the log.
 */
export async function waitForWebviewsDrawn(page: Page, timeoutMs: number, expected = 0, ready: (text: string) => boolean = drawnText): Promise<DrawnReport> {
  const started = Date.now();
  let framedMs: number | undefined;
  let textMs: number | undefined;
  for (;;) {
    const webviews = await webviewFrames(page);
    const onScreen = webviews.filter((w) => w.visible);
    const waitedMs = Date.now() - started;
    // Until VS Code has made the host frames, there is nothing to wait on: count them first.
    const all = onScreen.length >= expected;
    if (framedMs === undefined && all && onScreen.every((w) => w.inner.length > 0)) framedMs = waitedMs;
    if (textMs === undefined && all && onScreen.every((w) => w.text !== '')) textMs = waitedMs;
    const drawn = all && onScreen.every((w) => ready(w.text));
    if (drawn || waitedMs > timeoutMs) return { drawn, waitedMs, expected, framedMs, textMs, webviews };
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** How the wait went, without the pages' text: the outcome and when each stage was reached. */
export function describeTiming(report: DrawnReport): string {
  const stage = (ms: number | undefined) => (ms === undefined ? 'never' : `${ms} ms`);
  const outcome = report.drawn ? `drawn after ${report.waitedMs} ms` : `NOT drawn after ${report.waitedMs} ms`;
  return `webviews ${outcome} (${report.expected} expected on screen; page frame: ${stage(report.framedMs)}, first text: ${stage(report.textMs)})`;
}

/** The wait as one line: its timing, and what each webview showed at the end. */
export function describeWait(report: DrawnReport): string {
  return `${describeTiming(report)}: ${describeWebviews(report.webviews)}`;
}

/**
 * Our pages' placeholders: "Loading <title>…" until their script runs (webview/html.ts), then
 * "Waiting for the run's data from the editor…" (dashboard/main.ts, compare/main.ts) until the
 * extension answers their `ready`. Anything else is the page drawn.
 */
const PLACEHOLDER = /^(Loading .*…|Waiting for .* from the editor…)$/;

function drawnText(text: string): boolean {
  return text !== '' && !PLACEHOLDER.test(text);
}

/** One line per webview for the log: owner, on screen or not, and the first words of its page. */
export function describeWebviews(webviews: readonly WebviewFrame[]): string {
  if (webviews.length === 0) return 'no webview frames';
  return webviews
    .map((w) => `${w.extensionId} ${w.visible ? 'visible' : 'hidden'} [${w.inner.join(', ') || 'no inner frame'}]: ${w.text ? JSON.stringify(w.text.replace(/\s+/g, ' ').slice(0, 80)) : '(empty)'}`)
    .join('; ');
}

/** A frame's URL without the query's noise: the path's last two parts. */
export function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname.split('/').slice(-2).join('/') || url;
  } catch {
    return url;
  }
}
