/**
 * nftables rulesets the harness loads with `nft -f`. Each is one file that first deletes the
 * table and then declares it whole: nft applies a file as one transaction, so a partition, a
 * heal or a changed NAT table replaces the old rules atomically — no moment with half the
 * rules. (Pure text: tested without root.)
 */
import { ipToInt } from './names.ts';

/** The partition table in the switch namespace (bridge family: it sees frames between ports). */
const PARTITION_TABLE = 'bridge cidx_partition';

/** `table X` creates it if absent, so the `delete` that follows never fails. */
function replaceTable(table: string, body: string | undefined): string {
  return `table ${table}\ndelete table ${table}\n${body === undefined ? '' : `table ${table} {\n${body}}\n`}`;
}

function checkAddress(a: string): string {
  ipToInt(a); // throws on anything but a dotted IPv4 address
  return a;
}

/**
 * Groups that cannot exchange packets: every IPv4 packet from a member of one group to a member
 * of another is dropped on the bridge. Addresses in no group (the control leg) are untouched.
 * Dropped, not refused: a TCP connection across stalls (retransmits) and resumes after a heal.
 */
export function partitionRuleset(groups: readonly (readonly string[])[]): string {
  if (groups.length < 2) throw new Error('a partition needs at least two groups');
  const seen = new Set<string>();
  for (const g of groups)
    for (const a of g) {
      checkAddress(a);
      if (seen.has(a)) throw new Error(`address ${a} is in two groups`);
      seen.add(a);
    }
  const sets = groups
    .map((g, i) => {
      const elements = g.length > 0 ? ` elements = { ${g.join(', ')} };` : '';
      return `  set g${i} { type ipv4_addr;${elements} }\n`;
    })
    .join('');
  const rules: string[] = [];
  for (let i = 0; i < groups.length; i++)
    for (let j = 0; j < groups.length; j++)
      if (i !== j) rules.push(`    ip saddr @g${i} ip daddr @g${j} drop\n`);
  const chain =
    '  chain forward {\n    type filter hook forward priority 0; policy accept;\n' +
    `${rules.join('')}  }\n`;
  return replaceTable(PARTITION_TABLE, sets + chain);
}

/** Removes the partition (no table left behind). */
export function healRuleset(): string {
  return replaceTable(PARTITION_TABLE, undefined);
}

const NAT_TABLE = 'ip cidx_nat';

export interface PortForward {
  /** Port on the router's public address. */
  externalPort: number;
  /** The home host's address and port it reaches. */
  to: string;
  port: number;
  /** Only packets from this address are forwarded (e.g. the control leg); absent → anyone. */
  from?: string;
}

export interface NatRules {
  /** The router's public interface, the LAN bridge and the home subnet (CIDR). */
  wan: string;
  lan: string;
  lanCidr: string;
  forwards: readonly PortForward[];
}

function checkPort(p: number): number {
  if (!Number.isInteger(p) || p < 1 || p > 65535) throw new Error(`not a TCP port: ${p}`);
  return p;
}

/**
 * A home router: the LAN's packets leave masqueraded as the router's public address; from the
 * public side only replies (conntrack: established, related) and explicit port forwards come
 * in, so a public host cannot open a connection to a home host — even with a route to it.
 */
export function natRuleset(r: NatRules): string {
  const dnat = r.forwards
    .map((f) => {
      const from = f.from === undefined ? '' : ` ip saddr ${checkAddress(f.from)}`;
      return `    iifname "${r.wan}"${from} tcp dport ${checkPort(f.externalPort)} dnat to ${checkAddress(f.to)}:${checkPort(f.port)}\n`;
    })
    .join('');
  return replaceTable(
    NAT_TABLE,
    '  chain forward {\n    type filter hook forward priority filter; policy drop;\n' +
      `    iifname "${r.lan}" oifname "${r.wan}" accept\n` +
      `    iifname "${r.wan}" oifname "${r.lan}" ct state established,related accept\n` +
      `    iifname "${r.wan}" oifname "${r.lan}" ct status dnat accept\n  }\n` +
      '  chain prerouting {\n    type nat hook prerouting priority dstnat; policy accept;\n' +
      `${dnat}  }\n` +
      '  chain postrouting {\n    type nat hook postrouting priority srcnat; policy accept;\n' +
      `    oifname "${r.wan}" ip saddr ${r.lanCidr} masquerade\n  }\n`,
  );
}
