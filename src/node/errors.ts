/** Errors of node operations, each with a stable code the JSON-RPC layer maps to its own. */
export class NodeError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'NodeError';
    this.code = code;
  }
}

/** The community is not owned by this node: only its owner may update or dissolve it. */
export class NotOwnerError extends NodeError {
  constructor(id: string) {
    super('not-owner', `community ${id} is not owned by this node`);
    this.name = 'NotOwnerError';
  }
}

/** No such community (or it was dissolved). */
export class UnknownCommunityError extends NodeError {
  constructor(id: string, why = 'unknown community') {
    super('unknown-community', `${why}: ${id}`);
    this.name = 'UnknownCommunityError';
  }
}

/** No peer answered (no peers, timeouts, refusals). */
export class NetworkError extends NodeError {
  constructor(message: string) {
    super('network', message);
    this.name = 'NetworkError';
  }
}

/** The swarm runs other parameters than this node: its results would not be comparable. */
export class SwarmMismatchError extends NodeError {
  readonly theirs: unknown;
  constructor(ours: unknown, theirs: unknown) {
    super(
      'swarm-mismatch',
      `the swarm runs other parameters than this node: theirs ${JSON.stringify(theirs)}, ours ${JSON.stringify(ours)}`,
    );
    this.name = 'SwarmMismatchError';
    this.theirs = theirs;
  }
}
