export { compile, runnableNames, type CompileResult } from './compiler.js';
export * from './plan.js';
export { stringifyPlan, writePlanList } from './json.js';
export { Plans, userModules } from './plans.js';
export { SWEEP_MEMBERS_MAX, SWEEP_MEMBERS_WARN } from '../../shared/sweep-limits.js';
