/**
 * cidx's version, as `cidx --version` prints it and identify announces it. Imports nothing:
 * the command line reads it without loading libp2p.
 */
export const CIDX_VERSION = '0.1.0';
/**
 * What identify tells every peer a node runs. libp2p's default names libp2p and the runtime
 * (`js-libp2p/3.3.11 node/24.21.0`, 29 bytes, in both directions of every new connection);
 * a swarm's operators want to know which cidx a peer runs.
 */
export const USER_AGENT = `cidx/${CIDX_VERSION}`;
