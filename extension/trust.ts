// Workspace Trust: an env written `module("./env.ts")` is the workspace's own code, which the
// trainer would import and run. Reading, checking and completing a spec is safe in any
// workspace; training one that loads user code waits until the workspace is trusted. Which
// modules a plan loads is the compiler's fact (dsl/compile/plans.ts); for a sweep the language
// server answers it over every member (`modules` of rlx/plan).
export { userModules } from '../dsl/compile/plans.js';
