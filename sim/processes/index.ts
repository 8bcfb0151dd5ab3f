export { type HarnessOptions, ProcessHarness, type StartSpec } from './harness.ts';
export { type ExitInfo, NodeProcess, type ReadyLine } from './node-process.ts';
