/** Settings of the node process itself: addresses, state directory, the RPC port, logging. */
import { choice, int, list, text } from './kinds.ts';

const LOG_LEVELS = ['silent', 'error', 'warn', 'info', 'debug', 'trace'] as const;
const MIB = 1024 * 1024;

export const NODE = {
  listen: list({
    flag: 'listen',
    arg: '<multiaddr>',
    help: 'listen address, repeatable',
    category: 'node',
    default: ['/ip4/127.0.0.1/tcp/0'],
    minItems: 1,
  }),
  bootstrap: list({
    flag: 'bootstrap',
    arg: '<multiaddr>',
    help: 'a peer of the swarm to join through (…/p2p/<id>), repeatable',
    category: 'node',
    default: [],
    minItems: 0,
  }),
  rpc: text({
    flag: 'rpc',
    arg: '<host:port>',
    help: 'JSON-RPC address; port 0 picks one',
    category: 'node',
    default: '127.0.0.1:7070',
    pattern: /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s]+):\d{1,5}$/,
    patternRule: 'must be host:port, e.g. 127.0.0.1:7070',
    maxBytes: 300,
  }),
  data: text({
    flag: 'data',
    arg: '<dir>',
    help: 'keep identity, records and inbox in this directory',
    category: 'node',
    default: undefined,
    defaultText: 'in memory only',
    maxBytes: 4096,
  }),
  rpcMaxBodyBytes: int({
    flag: 'rpc-max-body-bytes',
    arg: '<bytes>',
    help: 'largest JSON-RPC request body',
    category: 'node',
    default: 8 * MIB,
    min: 1024,
    max: 1024 * MIB,
  }),
  logLevel: choice({
    flag: 'log-level',
    arg: '<level>',
    help: 'what goes to the stderr log',
    category: 'node',
    default: 'warn',
    values: LOG_LEVELS,
  }),
} as const;
