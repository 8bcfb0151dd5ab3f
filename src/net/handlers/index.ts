import type { Handlers } from '../server.ts';
import type { HandlerComponents } from './components.ts';
import { ContactsGetHandler, ContactsPutHandler } from './contacts.ts';
import { NotifyHandler } from './notify.ts';
import { ParamsHandler } from './params.ts';
import { ProbeHandler, QueryHandler } from './query.ts';
import { RemoveHandler } from './remove.ts';
import { RouteHandler } from './route.ts';
import { StoreHandler } from './store.ts';

export type { HandlerComponents } from './components.ts';

/** One handler per request type. */
export function createHandlers(c: HandlerComponents): Handlers {
  const store = new StoreHandler(c);
  return {
    query: new QueryHandler(c),
    probe: new ProbeHandler(c),
    store,
    update: store,
    remove: new RemoveHandler(c),
    'contacts-put': new ContactsPutHandler(c),
    'contacts-get': new ContactsGetHandler(c),
    notify: new NotifyHandler(c),
    route: new RouteHandler(c),
    params: new ParamsHandler(c),
  };
}
