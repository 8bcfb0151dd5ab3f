export { cleanupLeftovers, type LeftoverOptions, type LeftoverReport } from './leftovers.ts';
export { NatRouter, type NatRouterOptions } from './nat.ts';
export { type Host, NetnsNetwork, type NetworkOptions, withNetwork } from './network.ts';
export { NetnsUnavailableError, requireNetns, ToolError } from './tools.ts';
