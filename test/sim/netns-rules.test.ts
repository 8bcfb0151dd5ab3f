import { describe, expect, it } from 'vitest';
import {
  cidrRange,
  freeSlots,
  hostAddress,
  intToIp,
  ipToInt,
  ownerPid,
  SLOT_COUNT,
  slotSubnet,
} from '../../sim/netns/names.ts';
import { healRuleset, natRuleset, partitionRuleset } from '../../sim/netns/rulesets.ts';

describe('test network addresses and names', () => {
  it('splits 198.18.0.0/15 into /20 slots; hosts follow the control address', () => {
    expect(SLOT_COUNT).toBe(32);
    expect(slotSubnet(0).cidr).toBe('198.18.0.0/20');
    expect(slotSubnet(31).cidr).toBe('198.19.240.0/20');
    expect(hostAddress(slotSubnet(1), 0)).toBe('198.18.16.2');
    expect(hostAddress(slotSubnet(1), 4092)).toBe('198.18.31.254');
    expect(() => hostAddress(slotSubnet(1), 4093)).toThrow(/at most 4093 hosts/);
    expect(() => slotSubnet(32)).toThrow(/slot/);
    expect(intToIp(ipToInt('10.77.1.255'))).toBe('10.77.1.255');
    expect(() => ipToInt('10.77.1.256')).toThrow(/IPv4/);
  });

  it('skips slots that overlap a route of the machine', () => {
    expect(cidrRange('198.18.17.9/20')).toEqual([ipToInt('198.18.16.0'), ipToInt('198.18.31.255')]);
    const free = freeSlots(['198.18.16.0/20', '198.19.0.7/32', '10.0.0.0/8'], 1);
    expect(free[0]).toBe(2);
    expect(free).not.toContain(1);
    expect(free).not.toContain(16);
    expect(free).toHaveLength(30);
    // A route covering the whole range leaves nothing.
    expect(freeSlots(['198.0.0.0/8'], 0)).toEqual([]);
  });

  it('reads the owner pid from run prefixes only', () => {
    expect(ownerPid('cidx-1234-2-h7')).toBe(1234);
    expect(ownerPid('cidx-1234-2')).toBe(1234);
    expect(ownerPid('cidx-1234-2-AbC123')).toBe(1234);
    expect(ownerPid('cidx-burst-AbC123')).toBeUndefined();
    expect(ownerPid('cidx-123456')).toBeUndefined();
  });
});

describe('nftables rulesets', () => {
  it('drops between every pair of groups, replacing the table in one transaction', () => {
    const r = partitionRuleset([['198.18.0.2', '198.18.0.3'], ['198.18.0.4'], []]);
    const lines = r.split('\n');
    // create-if-absent, delete, declare: nft -f applies the file atomically.
    expect(lines.slice(0, 3)).toEqual([
      'table bridge cidx_partition',
      'delete table bridge cidx_partition',
      'table bridge cidx_partition {',
    ]);
    expect(r).toContain('set g0 { type ipv4_addr; elements = { 198.18.0.2, 198.18.0.3 }; }');
    expect(r).toContain('set g2 { type ipv4_addr; }');
    const drops = lines.filter((l) => l.trim().endsWith('drop'));
    expect(drops).toHaveLength(6);
    expect(drops).toContain('    ip saddr @g1 ip daddr @g0 drop');
    expect(healRuleset()).toBe('table bridge cidx_partition\ndelete table bridge cidx_partition\n');
  });

  it('refuses overlapping groups, one group and non-addresses', () => {
    expect(() => partitionRuleset([['198.18.0.2'], ['198.18.0.2']])).toThrow(/two groups/);
    expect(() => partitionRuleset([['198.18.0.2']])).toThrow(/two groups/);
    expect(() => partitionRuleset([['198.18.0.2'], ['x; flush ruleset']])).toThrow(/IPv4/);
  });

  it('masquerades the LAN, admits replies and named forwards only', () => {
    const r = natRuleset({
      wan: 'eth0',
      lan: 'lan0',
      lanCidr: '192.168.1.0/24',
      forwards: [{ externalPort: 7001, to: '192.168.1.2', port: 7070, from: '198.18.0.1' }],
    });
    expect(r).toContain('policy drop;');
    expect(r).toContain('iifname "eth0" oifname "lan0" ct state established,related accept');
    expect(r).toContain('oifname "eth0" ip saddr 192.168.1.0/24 masquerade');
    expect(r).toContain(
      'iifname "eth0" ip saddr 198.18.0.1 tcp dport 7001 dnat to 192.168.1.2:7070',
    );
    expect(() =>
      natRuleset({
        wan: 'eth0',
        lan: 'lan0',
        lanCidr: '192.168.1.0/24',
        forwards: [{ externalPort: 70000, to: '192.168.1.2', port: 1 }],
      }),
    ).toThrow(/port/);
  });
});
