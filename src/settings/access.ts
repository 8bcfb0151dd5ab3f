/** Settings of the RPC port's access rules and of the node's Prometheus metrics. */
import { bool, list, text } from './kinds.ts';

export const MIN_TOKEN_LENGTH = 16;

export const ACCESS = {
  rpcToken: text({
    flag: 'rpc-token',
    arg: '<token>',
    help:
      'bearer token every request to the RPC port must carry; required when --rpc is not ' +
      'loopback (prefer CIDX_RPC_TOKEN: other users can read command lines)',
    category: 'access',
    default: undefined,
    defaultText: 'none',
    pattern: new RegExp(`^[\\x21-\\x7e]{${MIN_TOKEN_LENGTH},}$`),
    patternRule: `must be at least ${MIN_TOKEN_LENGTH} printable ASCII characters without spaces`,
    maxBytes: 1024,
  }),
  rpcVhosts: list({
    flag: 'rpc-vhosts',
    arg: '<names>',
    help:
      'Host header names the RPC port also answers to, besides the addresses it listens on ' +
      '(* for any: DNS rebinding then reaches it)',
    category: 'access',
    default: [],
    minItems: 0,
  }),
  metrics: bool({
    flag: 'metrics',
    arg: '',
    help: 'serve Prometheus metrics on GET <rpc>/metrics',
    category: 'access',
    default: true,
  }),
} as const;
