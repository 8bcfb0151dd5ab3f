import type { PeerId } from '@libp2p/interface';
import type { Request, Response } from '../codec.ts';
import { type Handler, ok } from '../server.ts';
import type { HandlerComponents } from './components.ts';

/** Tells a peer this node's swarm parameters (checked by a node joining through us). */
export class ParamsHandler implements Handler<'params'> {
  readonly #c: HandlerComponents;
  constructor(c: HandlerComponents) {
    this.#c = c;
  }

  async handle(_from: PeerId, _req: Extract<Request, { t: 'params' }>): Promise<Response> {
    return ok({ params: this.#c.swarm.params });
  }
}
