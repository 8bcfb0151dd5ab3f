import type { PeerId } from '@libp2p/interface';
import type { Request, Response } from '../codec.ts';
import { UNROUTED } from '../route.ts';
import { type Handler, ok } from '../server.ts';
import type { HandlerComponents } from './components.ts';

/**
 * A read routed towards its key's replicas (route.ts): answered, handed on, or `unrouted` by a
 * node that routes nothing (its router is not set, as in the in-memory network).
 */
export class RouteHandler implements Handler<'route'> {
  readonly #c: HandlerComponents;
  constructor(c: HandlerComponents) {
    this.#c = c;
  }

  async handle(from: PeerId, req: Extract<Request, { t: 'route' }>): Promise<Response> {
    const router = this.#c.router;
    if (router === undefined) return ok({ outcome: UNROUTED });
    return router.handle(from, req);
  }
}
