// Types of "#chevrotain" (package.json "imports"): chevrotain's own, for its single-file build
// that tools/vendor.ts copies to out/vendor/ (see there why).
export * from 'chevrotain';
