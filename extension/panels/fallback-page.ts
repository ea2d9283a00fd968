// The page a panel shows until the dashboard pages (webview/, bundled to dist/webview/) are
// there: each run's state and latest metrics, and for rollouts the recorded episodes. It speaks
// the same protocol as the real pages (webview/protocol.ts), so the panels do not change when
// those arrive. One inline script, allowed by its nonce; colours from the theme's variables.
import type { PageKind } from '../../webview/protocol.js';

export interface FallbackPageOptions {
  page: PageKind;
  title: string;
  nonce: string;
  cspSource: string;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function fallbackPageHtml({ page, title, nonce, cspSource }: FallbackPageOptions): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(cspSource, nonce)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">
  body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); background: var(--vscode-editor-background); padding: 0 16px 16px; }
  h1 { font-size: 1.3em; font-weight: 600; margin: 16px 0 4px; }
  h2 { font-size: 1.1em; font-weight: 600; margin: 0; }
  .note { color: var(--vscode-descriptionForeground); margin: 0 0 16px; }
  .run { border: 1px solid var(--vscode-panel-border, var(--vscode-widget-border, transparent)); border-radius: 4px; padding: 10px 12px; margin: 0 0 12px; }
  .state { font-weight: 600; }
  .state.running { color: var(--vscode-charts-blue); }
  .state.finished { color: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); }
  .state.failed, .state.crashed { color: var(--vscode-errorForeground); }
  .state.stopped { color: var(--vscode-charts-yellow); }
  .meta { color: var(--vscode-descriptionForeground); margin: 4px 0 8px; }
  .error { color: var(--vscode-errorForeground); white-space: pre-wrap; margin: 4px 0; }
  table { border-collapse: collapse; }
  td { padding: 1px 16px 1px 0; font-variant-numeric: tabular-nums; }
  td:first-child { color: var(--vscode-descriptionForeground); }
  button { font-family: inherit; color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); border: none; border-radius: 2px; padding: 3px 8px; margin: 2px 4px 2px 0; cursor: pointer; }
  button:hover { background: var(--vscode-button-secondaryHoverBackground); }
  button:focus-visible { outline: 1px solid var(--vscode-focusBorder); }
  .episode { margin-top: 8px; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p class="note">The latest metrics of ${page === 'compare' ? 'these runs' : 'this run'}, updated as training goes on.</p>
<div id="runs"></div>
<script nonce="${nonce}">
(function () {
  const vscode = acquireVsCodeApi();
  const page = ${JSON.stringify(page)};
  const runs = new Map();
  const previous = vscode.getState();
  const root = document.getElementById('runs');

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function fmt(v) {
    if (typeof v !== 'number' || !isFinite(v)) return String(v);
    const a = Math.abs(v);
    return a !== 0 && (a < 1e-3 || a >= 1e6) ? v.toExponential(3) : String(Math.round(v * 1e4) / 1e4);
  }
  function render() {
    root.replaceChildren();
    for (const run of runs.values()) {
      const box = el('section', 'run');
      box.append(el('h2', undefined, run.experiment + ' / ' + run.runId));
      const s = run.status || {};
      const meta = el('div', 'meta');
      meta.append(el('span', 'state ' + run.state, run.state), document.createTextNode(
        (s.step !== undefined ? ' · ' + s.step + (s.budget ? ' of ' + s.budget : '') + ' steps' : '') + (s.reason ? ' · ' + s.reason : '')));
      box.append(meta);
      if (s.error) box.append(el('div', 'error', s.error));
      const table = el('table');
      const keys = Object.keys(run.metrics).sort();
      for (const key of keys) {
        const tr = el('tr');
        tr.append(el('td', undefined, key), el('td', undefined, fmt(run.metrics[key])));
        table.append(tr);
      }
      if (keys.length === 0) box.append(el('div', 'meta', 'No metrics yet.'));
      box.append(table);
      const actions = el('div');
      const plan = el('button', undefined, 'Open plan.json');
      plan.addEventListener('click', () => vscode.postMessage({ type: 'openFile', runId: run.id, relativePath: 'plan.json' }));
      const events = el('button', undefined, 'Open events.jsonl');
      events.addEventListener('click', () => vscode.postMessage({ type: 'openFile', runId: run.id, relativePath: 'events.jsonl' }));
      actions.append(plan, events);
      box.append(actions);
      if (page === 'rollouts') {
        const list = el('div');
        for (const ep of run.episodes) {
          const b = el('button', undefined, 'episode at step ' + ep.step);
          b.addEventListener('click', () => vscode.postMessage({ type: 'openEpisode', runId: run.id, file: ep.file }));
          list.append(b);
        }
        if (run.episodes.length === 0) list.append(el('div', 'meta', 'No recorded episodes yet.'));
        box.append(list);
        if (run.episode) box.append(el('div', 'episode', run.episode));
      }
      root.append(box);
    }
  }
  window.addEventListener('message', (event) => {
    const m = event.data;
    if (m.type === 'runs') {
      runs.clear();
      for (const r of m.runs) runs.set(r.id, { ...r, metrics: { ...((r.status && r.status.metrics) || {}) }, episodes: [], episode: '' });
      vscode.setState({ runs: m.runs.map((r) => r.id) });
    } else {
      const run = runs.get(m.runId);
      if (!run) return;
      if (m.type === 'status') { run.state = m.state; run.status = m.status; Object.assign(run.metrics, (m.status && m.status.metrics) || {}); }
      else if (m.type === 'events') { for (const e of m.events) if (e.type === 'metrics' || e.type === 'eval') Object.assign(run.metrics, e.values); }
      else if (m.type === 'rollouts') run.episodes = m.episodes;
      else if (m.type === 'episode') {
        const ret = m.steps.reduce((sum, s) => sum + (typeof s.env_reward === 'number' ? s.env_reward : 0), 0);
        run.episode = m.steps.length + ' steps, return ' + fmt(ret) + (m.header ? ' (' + m.header.env + ')' : '');
      }
    }
    render();
  });
  if (previous && previous.runs) root.append(el('div', 'meta', 'Loading...'));
  vscode.postMessage({ type: 'ready', page });
})();
</script>
</body>
</html>`;
}
