import { JSONRPCErrorException } from 'json-rpc-2.0';
import { NodeError } from '../node/errors.ts';
import { FieldError } from '../profile/errors.ts';
import { RPC_ERRORS } from './api.ts';

export { RPC_ERRORS };

/** Maps an error thrown by a method to its JSON-RPC error; unknown errors are internal. */
export function toRpcError(err: unknown): JSONRPCErrorException {
  if (err instanceof JSONRPCErrorException) return err;
  if (err instanceof FieldError)
    return new JSONRPCErrorException(err.message, RPC_ERRORS.invalidParams, { field: err.field });
  if (err instanceof NodeError) {
    const code =
      err.code === 'not-owner'
        ? RPC_ERRORS.notOwner
        : err.code === 'unknown-community'
          ? RPC_ERRORS.unknownCommunity
          : RPC_ERRORS.network;
    return new JSONRPCErrorException(err.message, code, { reason: err.code });
  }
  return new JSONRPCErrorException(
    `internal error: ${(err as Error)?.message ?? String(err)}`,
    RPC_ERRORS.internal,
  );
}
