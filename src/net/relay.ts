/**
 * Circuit relay v2 settings: the slots a node that cannot be dialled reserves at relays, and the
 * bounds a public node's relay puts on what it carries for others. Declared, with their defaults
 * and ranges, in the settings table (src/settings/reach.ts).
 *
 * `durationLimitMs`: the js-libp2p relay enforces it in ms and sends the same number to the
 * reserving node, which reads it as seconds: the bound that holds is the relay's.
 */
import { ParamsError } from '../keys/params.ts';
import { type RelaySettings, SETTINGS } from '../settings/table.ts';
import { defaultsOf, resolveGroup } from '../settings/tree.ts';

export type { RelaySettings };

export const DEFAULT_RELAY: RelaySettings = defaultsOf(SETTINGS.relay);

/** Fills in defaults and checks ranges; throws ParamsError naming the setting. */
export function resolveRelay(r: Partial<RelaySettings> = {}): RelaySettings {
  return resolveGroup(SETTINGS.relay, r, (name, problem) => {
    throw new ParamsError(`relay.${name}`, problem);
  });
}
