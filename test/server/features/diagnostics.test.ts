import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DiagnosticSeverity } from 'vscode-languageserver';
import { toLspDiagnostics } from '../../../server/features/diagnostics.js';
import { fixture } from './fixture.js';

describe('diagnostics', () => {
  it('severity, code, source and the exact range of each checker diagnostic', () => {
    const f = fixture('algorithm A = PPO { ⟦gama⟧: 0.9, learning_rate: ⟦0.5⟧ }');
    const [unknown, suspicious] = f.marks();
    assert.deepEqual(toLspDiagnostics(f.doc).map((d) => ({ range: d.range, severity: d.severity, code: d.code, source: d.source })), [
      { range: unknown, severity: DiagnosticSeverity.Error, code: 'unknown-property', source: 'rlx' },
      { range: suspicious, severity: DiagnosticSeverity.Warning, code: 'suspicious-value', source: 'rlx' },
    ]);
    assert.match(toLspDiagnostics(f.doc)[0].message as string, /did you mean 'gamma'\?/);
  });

  it('related information points into other files', () => {
    const f = fixture({ 'main.rlx': 'import "./envs.rlx"\nenv ⟦Pole⟧ = CartPole', 'envs.rlx': 'env ⟦Pole⟧ = Pendulum' });
    const [d] = toLspDiagnostics(f.doc);
    assert.equal(d.code, 'duplicate-name');
    assert.deepEqual(d.range, f.marks()[0]);
    assert.deepEqual(d.relatedInformation, [{ location: { uri: f.uri('envs.rlx'), range: f.marks('envs.rlx')[0] }, message: 'also declared here' }]);
  });

  it('only the document\'s own diagnostics; none for a clean file', () => {
    const f = fixture({ 'main.rlx': 'import "./envs.rlx"\nexperiment E { env: Pole, policy: mlp, algorithm: PPO, budget: 1k }', 'envs.rlx': 'env Pole = CartPole { gamma: 1 }' });
    assert.deepEqual(toLspDiagnostics(f.doc), []);
    assert.equal(toLspDiagnostics(f.docOf('envs.rlx')).length, 1);
  });
});
