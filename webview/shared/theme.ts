// VS Code's theme as canvas colours. CSS styles the DOM with --vscode-* variables directly;
// canvases (charts, env drawings) cannot use CSS variables, so they read the computed values
// here, and redraw when VS Code switches theme (it changes the body class and the variables
// on <html> without reloading the page).

export type ThemeKind = 'light' | 'dark' | 'high-contrast' | 'high-contrast-light';

export interface Theme {
  kind: ThemeKind;
  foreground: string;
  muted: string;
  background: string;
  grid: string;
  focus: string;
  error: string;
  success: string;
  /** Series colours, in the order series are given them. */
  palette: string[];
  /**
   * Colours for many series told apart only by colour (each run of a comparison): ten distinct
   * hues, where VS Code's six chart colours put orange beside yellow and red.
   */
  categorical: readonly string[];
  /** Data lines are this much thicker than their nominal width: more in high contrast. */
  lineScale: number;
  font: string;
  monoFont: string;
  fontSize: number;
}

/**
 * Observable's ten categorical colours (Observable Plot's default scheme), chosen to stay apart
 * in hue and lightness on light and dark backgrounds alike: every pair is at least 30 apart in
 * CIELAB (test/webview/shared/theme.test.ts).
 */
export const CATEGORICAL: readonly string[] = ['#4269d0', '#efb118', '#ff725c', '#6cc5b0', '#3ca951', '#ff8ab7', '#a463f2', '#97bbf5', '#9c6b4e', '#9498a0'];

/** Used when a variable is missing (an old VS Code, or a page opened outside one). */
const FALLBACK_DARK = ['#3794ff', '#f14c4c', '#89d185', '#cca700', '#d18616', '#b180d7'];
const FALLBACK_LIGHT = ['#1a85ff', '#e51400', '#388a34', '#bf8803', '#d18616', '#652d90'];

export function themeKind(body: HTMLElement = document.body): ThemeKind {
  const c = body.classList;
  if (c.contains('vscode-high-contrast-light')) return 'high-contrast-light';
  if (c.contains('vscode-high-contrast')) return 'high-contrast';
  if (c.contains('vscode-light')) return 'light';
  return 'dark';
}

export function readTheme(): Theme {
  const style = getComputedStyle(document.body);
  const v = (name: string, fallback: string) => style.getPropertyValue(`--vscode-${name}`).trim() || fallback;
  const kind = themeKind();
  const light = kind === 'light' || kind === 'high-contrast-light';
  const contrast = kind.startsWith('high-contrast');
  const fallback = light ? FALLBACK_LIGHT : FALLBACK_DARK;
  const foreground = v('foreground', light ? '#3b3b3b' : '#cccccc');
  const palette = ['blue', 'red', 'green', 'yellow', 'orange', 'purple'].map((name, i) => v(`charts-${name}`, fallback[i]));
  const fontSize = parseFloat(v('font-size', '13px')) || 13;
  return {
    kind,
    foreground,
    muted: v('descriptionForeground', foreground),
    background: v('editor-background', light ? '#ffffff' : '#1e1e1e'),
    grid: contrast ? v('contrastBorder', foreground) : v('charts-lines', light ? 'rgba(0,0,0,0.12)' : 'rgba(255,255,255,0.12)'),
    focus: v('focusBorder', fallback[0]),
    error: v('errorForeground', fallback[1]),
    success: v('testing-iconPassed', fallback[2]),
    palette,
    categorical: CATEGORICAL,
    lineScale: contrast ? 1.4 : 1,
    font: v('font-family', 'system-ui, sans-serif'),
    monoFont: v('editor-font-family', 'monospace'),
    fontSize,
  };
}

/** `color` with an alpha, for faint raw lines behind smoothed ones and for bands. */
export function withAlpha(color: string, alpha: number): string {
  const hex = /^#([0-9a-f]{3,8})$/i.exec(color.trim());
  if (hex) {
    let digits = hex[1];
    if (digits.length === 3 || digits.length === 4) digits = [...digits].map((d) => d + d).join('');
    const [r, g, b] = [0, 2, 4].map((i) => parseInt(digits.slice(i, i + 2), 16));
    return `rgba(${r}, ${g}, ${b}, ${alpha})`;
  }
  const rgb = /^rgba?\(([^)]+)\)$/i.exec(color.trim());
  if (rgb) {
    const [r, g, b] = rgb[1].split(/[ ,/]+/);
    return `rgba(${r}, ${g}, ${b}, ${alpha})`;
  }
  return color; // a named colour: keep it opaque rather than guess
}

/**
 * The current theme, and calls `onChange` with the new one whenever VS Code switches theme.
 * Returns the theme read now.
 */
export function watchTheme(onChange: (theme: Theme) => void): Theme {
  let last = JSON.stringify(readTheme());
  const check = () => {
    const theme = readTheme();
    const key = JSON.stringify(theme);
    if (key !== last) {
      last = key;
      onChange(theme);
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document.body, { attributes: true, attributeFilter: ['class'] });
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['style', 'class'] });
  return JSON.parse(last) as Theme;
}
