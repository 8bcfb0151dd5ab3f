export { type HarnessOptions, ProcessHarness, type StartSpec } from './harness.ts';
export { NatTestbed, type NatTestbedOptions, type TestbedNode, tcpAddr } from './nat-testbed.ts';
export { type ExitInfo, NodeProcess, type ReadyLine } from './node-process.ts';
