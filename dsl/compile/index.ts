export { compile, runnableNames, type CompileResult } from './compiler.js';
export * from './plan.js';
export { stringifyPlan } from './json.js';
