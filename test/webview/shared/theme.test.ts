// The categorical palette that tells runs apart by colour alone: ten hues far apart.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CATEGORICAL } from '../../../webview/shared/theme.js';

/** sRGB hex to CIELAB (D65), where Euclidean distance approximates perceived difference. */
function lab(hex: string): [number, number, number] {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c > 0.04045 ? ((c + 0.055) / 1.055) ** 2.4 : c / 12.92;
  });
  const f = (t: number) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  const x = f((r * 0.4124 + g * 0.3576 + b * 0.1805) / 0.95047);
  const y = f(r * 0.2126 + g * 0.7152 + b * 0.0722);
  const z = f((r * 0.0193 + g * 0.1192 + b * 0.9505) / 1.08883);
  return [116 * y - 16, 500 * (x - y), 200 * (y - z)];
}

const distance = (a: string, b: string) => Math.hypot(...lab(a).map((v, i) => v - lab(b)[i]));

describe('categorical palette', () => {
  it('has ten colours, every pair at least 30 apart in CIELAB (VS Code\'s six chart colours: 23, orange beside yellow)', () => {
    assert.equal(CATEGORICAL.length, 10);
    let closest = { d: Infinity, pair: '' };
    for (let i = 0; i < CATEGORICAL.length; i++) {
      for (let j = i + 1; j < CATEGORICAL.length; j++) {
        const d = distance(CATEGORICAL[i], CATEGORICAL[j]);
        if (d < closest.d) closest = { d, pair: `${CATEGORICAL[i]} ${CATEGORICAL[j]}` };
      }
    }
    assert.ok(closest.d >= 30, `closest pair ${closest.pair}: ${closest.d.toFixed(1)}`);
    const vscode = ['#3794ff', '#f14c4c', '#89d185', '#cca700', '#d18616', '#b180d7'];
    assert.ok(distance(vscode[3], vscode[4]) < 30, 'the measure tells the old palette\'s near pair apart from a good one');
  });

  it('every colour stands out from light and dark editor backgrounds', () => {
    for (const background of ['#ffffff', '#1e1e1e']) {
      for (const color of CATEGORICAL) assert.ok(distance(color, background) >= 30, `${color} on ${background}: ${distance(color, background).toFixed(1)}`);
    }
  });
});
