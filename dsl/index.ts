// The rlx language front end: parse, check, format, compile. Knows nothing of LSP, VS Code or
// the trainer.
export * from './syntax/ast.js';
export { parse, type ParseResult, type SyntaxError } from './syntax/parse.js';
export { Workspace, type DataFileRead, type DatasetRead, type FileHost, type SourceUnit } from './semantics/workspace.js';
export { Model, type DeclSymbol, type Target, type Reference, type EffectiveDeclaration } from './semantics/model.js';
export { analyze, analyzeInSteps, type Analysis, type AnalyzeOptions } from './check/checker.js';
export type { PythonEnvFacts, PythonEnvFactsProvider, PythonEnvProbeFailure, PythonEnvQuery, PythonEnvRead } from './schema/python-env-facts.js';
export { pythonEnvKey } from './semantics/python-env.js';
export { CheckCache } from './check/reuse.js';
export type { HiddenDiagnostics } from './check/context.js';
export * from './diagnostics.js';
export { LineIndex, type Position } from './text.js';
export * from './compile/index.js';
export * from './format/index.js';
export { nodePathAt, innermost, childrenOf, walk, type NodePath } from './syntax/locate.js';
export { reparse } from './syntax/incremental.js';
