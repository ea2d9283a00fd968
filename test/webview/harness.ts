// Loads the bundled pages in headless Chromium the way a VS Code webview holds them: the HTML
// from webview/html.ts with its CSP and nonce, the bundle served from one origin (the
// webview's cspSource), and a stand-in for acquireVsCodeApi() that keeps state across reloads
// (as VS Code does for a hidden or reloaded panel) and hands every posted message to a fake
// host in the test (fake-host.ts), which answers as the extension would.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { bundleWebview } from '../../tools/bundle-webview.js';
import { pageHtml } from '../../webview/html.js';
import type { HostMessage, PageKind, PageMessage } from '../../webview/protocol.js';
import { repoRoot } from '../helpers/repo.js';
import { THEMES, type ThemeName } from './themes.js';

export const CHROMIUM = '/usr/bin/chromium';
const ORIGIN = 'https://rlx-webview.test';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/**
 * Why the browser tests cannot run here, or undefined when they can. Without Chromium they are
 * skipped on a developer's machine, and fail in CI (where a skip would hide a missing setup).
 */
export function chromiumMissing(): string | undefined {
  if (fs.existsSync(CHROMIUM)) return undefined;
  const message = `${CHROMIUM} not found: the webview tests need Debian's chromium (apt-get install chromium)`;
  if (process.env.CI) throw new Error(`${message}; CI is set, so this is a failure, not a skip`);
  return `${message}; skipped`;
}

const bundled = new Map<boolean, Promise<Map<string, Buffer>>>();
let pagesOpened = 0;

/**
 * The three pages, bundled once per process and kept in memory: readable for tests (stack
 * traces), minified as shipped for the bench.
 */
export function pageBundles(minify = false): Promise<Map<string, Buffer>> {
  let files = bundled.get(minify);
  if (!files) {
    files = bundleWebview('bundle', { write: false, minify }).then((result) => new Map(result.outputFiles!.map((f) => [path.basename(f.path), Buffer.from(f.contents)])));
    bundled.set(minify, files);
  }
  return files;
}

export function screenshotDir(): string {
  const dir = path.join(repoRoot(), '.tmp', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

export interface OpenOptions {
  theme?: ThemeName;
  width?: number;
  height?: number;
  /** The bundle as shipped (minified), for measurements. */
  minified?: boolean;
  /** Answers the page's messages (ready, openEpisode); without one, messages are only recorded. */
  host?: (message: PageMessage, page: PageUnderTest) => void | Promise<void>;
}

export class Browser {
  private constructor(
    private readonly context: BrowserContext,
    private readonly profile: string,
  ) {}

  static async launch(): Promise<Browser> {
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-chromium-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: { width: 1200, height: 900 },
    });
    return new Browser(context, profile);
  }

  async open(kind: PageKind, options: OpenOptions = {}): Promise<PageUnderTest> {
    const page = await this.context.newPage();
    await page.setViewportSize({ width: options.width ?? 1200, height: options.height ?? 900 });
    const under = new PageUnderTest(page, kind, options);
    await under.load();
    return under;
  }

  async close(): Promise<void> {
    await this.context.close();
    fs.rmSync(this.profile, { recursive: true, force: true });
  }
}

/** Installed before any page script: VS Code's API as a webview page sees it. */
function fakeVsCodeApi({ theme, stateKey }: { theme: { bodyClass: string; variables: Record<string, string> }; stateKey: string }): void {
  // Per page under test: the state survives its reloads, and no other test sees it.
  const STATE_KEY = stateKey;
  // The script runs before the document exists: style <html> and <body> as they appear.
  const applyTheme = () => {
    const root = document.documentElement;
    if (root && !root.dataset.themed) {
      root.dataset.themed = 'yes';
      for (const [name, value] of Object.entries(theme.variables)) root.style.setProperty(`--vscode-${name}`, value);
    }
    if (document.body) document.body.classList.add(theme.bodyClass);
    return Boolean(root && document.body);
  };
  if (!applyTheme()) {
    new MutationObserver((_, observer) => {
      if (applyTheme()) observer.disconnect();
    }).observe(document, { childList: true, subtree: true });
  }
  const w = window as unknown as Record<string, unknown>;
  const posted: unknown[] = [];
  w.__posted = posted;
  w.__rlxStateKey = STATE_KEY;
  let acquired = false;
  w.acquireVsCodeApi = () => {
    if (acquired) throw new Error('An instance of the VS Code API has already been acquired');
    acquired = true;
    return Object.freeze({
      postMessage(message: unknown) {
        posted.push(message);
        (w.__rlxHost as ((m: unknown) => void) | undefined)?.(message);
      },
      getState() {
        const saved = sessionStorage.getItem(STATE_KEY);
        return saved === null ? undefined : JSON.parse(saved);
      },
      setState(state: unknown) {
        sessionStorage.setItem(STATE_KEY, JSON.stringify(state));
        return state;
      },
    });
  };
}

export class PageUnderTest {
  /** Console errors, page errors and blocked requests: every test expects none. */
  readonly errors: string[] = [];
  theme: ThemeName;

  constructor(
    readonly page: Page,
    readonly kind: PageKind,
    private readonly options: OpenOptions,
  ) {
    this.theme = options.theme ?? 'dark';
    page.on('console', (m) => {
      if (m.type() === 'error') this.errors.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => this.errors.push(`page error: ${e.message}`));
  }

  get url(): string {
    return `${ORIGIN}/${this.kind}.html`;
  }

  async load(): Promise<void> {
    const { page, kind } = this;
    const bundles = await pageBundles(this.options.minified);
    await page.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      if (url.origin !== ORIGIN) {
        // The pages must not reach for anything outside their bundle.
        this.errors.push(`external request: ${url.href}`);
        return route.abort();
      }
      const name = url.pathname.slice(1);
      if (name === `${kind}.html`) {
        const html = pageHtml({
          page: kind,
          scriptUri: `${ORIGIN}/${kind}.js`,
          styleUri: `${ORIGIN}/${kind}.css`,
          nonce: 'dGVzdC1ub25jZS1mb3ItdGhlLWhhcm5lc3M=',
          cspSource: ORIGIN,
          title: `rlx ${kind}`,
        });
        return route.fulfill({ status: 200, contentType: 'text/html', body: html });
      }
      const file = bundles.get(name);
      if (!file) {
        this.errors.push(`missing file: ${name}`);
        return route.fulfill({ status: 404, body: '' });
      }
      return route.fulfill({ status: 200, contentType: name.endsWith('.css') ? 'text/css' : name.endsWith('.js') ? 'text/javascript' : 'application/json', body: file });
    });
    await page.exposeFunction('__rlxHost', (message: PageMessage) => this.options.host?.(message, this));
    await page.addInitScript(fakeVsCodeApi, { theme: THEMES[this.theme], stateKey: `rlx-test-state-${++pagesOpened}` });
    await page.goto(this.url);
  }

  /** Posts a message as the extension does (webview.postMessage arrives as a window message). */
  async post(message: HostMessage): Promise<void> {
    await this.page.evaluate((m) => window.postMessage(m, '*'), message as unknown as Record<string, unknown>);
  }

  async posted(): Promise<PageMessage[]> {
    return this.page.evaluate(() => (window as unknown as { __posted: PageMessage[] }).__posted.slice());
  }

  /** Waits for `count` exports (`save` messages) the page posted, and returns them. */
  async waitForSaves(count: number): Promise<Extract<PageMessage, { type: 'save' }>[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const saves = (await this.posted()).filter((m): m is Extract<PageMessage, { type: 'save' }> => m.type === 'save');
      if (saves.length >= count || Date.now() > deadline) return saves;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** What the page last gave setState (what VS Code hands the host's serializer on reload). */
  async savedState<T>(): Promise<T | undefined> {
    return this.page.evaluate(() => {
      const saved = sessionStorage.getItem((window as unknown as { __rlxStateKey: string }).__rlxStateKey);
      return saved === null ? undefined : JSON.parse(saved);
    }) as Promise<T | undefined>;
  }

  async snapshot<T>(): Promise<T> {
    return this.page.evaluate(() => (window as unknown as { __rlxTest: { snapshot(): unknown } }).__rlxTest.snapshot()) as Promise<T>;
  }

  /** Polls the page's test hook until `accept` holds; fails with the last snapshot otherwise. */
  async waitFor<T>(accept: (snapshot: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let last: T | undefined;
    for (;;) {
      last = await this.snapshot<T>();
      if (accept(last)) return last;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the page's last snapshot:\n${JSON.stringify(last, null, 1).slice(0, 4000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Reloads as VS Code does when the window reloads: saved state stays, the page starts over. */
  async reload(): Promise<void> {
    await this.page.reload();
  }

  /** Switches theme live, as VS Code does: variables on <html>, class on <body>. */
  async setTheme(name: ThemeName): Promise<void> {
    const from = THEMES[this.theme];
    const to = THEMES[name];
    this.theme = name;
    await this.page.evaluate(
      ({ from, to }) => {
        const root = document.documentElement;
        for (const name of Object.keys(from.variables)) root.style.removeProperty(`--vscode-${name}`);
        for (const [name, value] of Object.entries(to.variables)) root.style.setProperty(`--vscode-${name}`, value);
        document.body.classList.remove(from.bodyClass);
        document.body.classList.add(to.bodyClass);
      },
      { from, to },
    );
  }

  /** Waits until what was just posted or clicked is drawn: two frames, and no page work pending. */
  async settle(): Promise<void> {
    await this.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await this.waitFor<{ busy?: boolean }>((s) => s.busy !== true, 'the page to finish drawing');
  }

  /** A full-page screenshot; the viewport grows to the page first, so every chart is drawn. */
  async screenshot(name: string): Promise<string> {
    const viewport = this.page.viewportSize()!;
    const height = await this.page.evaluate(() => document.documentElement.scrollHeight);
    await this.page.setViewportSize({ width: viewport.width, height: Math.max(viewport.height, height) });
    await this.settle();
    await this.settle();
    const file = path.join(screenshotDir(), `${this.kind}-${name}-${this.theme}.png`);
    await this.page.screenshot({ path: file, fullPage: true });
    await this.page.setViewportSize(viewport);
    return file;
  }

  async close(): Promise<void> {
    await this.page.close();
  }
}
