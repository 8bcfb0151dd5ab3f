/**
 * A simulated node's listen address: `/memory/` and its index in five digits (more past
 * 99,999 nodes). Its binary form is 8 bytes, as long as the `/ip4/…/tcp/…` address of a node on
 * the internet, so the bytes a run reports for addresses — in every DHT answer, identify
 * message and contacts record — are what a deployed swarm would send. Names need only be
 * unique within one run: each run has its own network model and registry of listeners.
 */
export function simNodeAddr(index: number): string {
  return `/memory/${String(index).padStart(5, '0')}`;
}

/** The index of the node listening at `simNodeAddr(index)`; undefined for another address. */
export function simNodeIndex(addr: string): number | undefined {
  const m = /^\/memory\/(\d+)$/.exec(addr);
  return m === null ? undefined : Number(m[1]);
}
