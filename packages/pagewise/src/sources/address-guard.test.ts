// Tests of the address guard: a table of public and non-public addresses, and the connect-time lookup.
import { describe, expect, it } from 'vitest';
import type { LookupAddress } from 'node:dns';
import { AccessDeniedError } from '../errors.js';
import { classifyAddress, guardedLookup, isPublicAddress } from './address-guard.js';

describe('classifyAddress', () => {
  const table: [address: string, isPublic: boolean, range: string][] = [
    ['127.0.0.1', false, 'loopback'],
    ['10.1.2.3', false, 'private'],
    ['172.16.0.1', false, 'private'],
    ['192.168.1.1', false, 'private'],
    ['169.254.169.254', false, 'linkLocal'],
    ['::1', false, 'loopback'],
    ['fe80::1', false, 'linkLocal'],
    ['fc00::1', false, 'uniqueLocal'],
    ['fd12::1', false, 'uniqueLocal'],
    ['::ffff:127.0.0.1', false, 'ipv4Mapped:loopback'],
    ['::ffff:10.0.0.1', false, 'ipv4Mapped:private'],
    ['0.0.0.0', false, 'unspecified'],
    ['::', false, 'unspecified'],
    ['100.64.0.1', false, 'carrierGradeNat'],
    ['255.255.255.255', false, 'broadcast'],
    ['224.0.0.1', false, 'multicast'],
    ['ff02::1', false, 'multicast'],
    ['192.0.2.1', false, 'reserved'],
    ['64:ff9b::a00:1', false, 'ipv4Mapped:private'],
    ['64:ff9b:1::808:808', false, 'rfc6052'],
    ['::7f00:1', false, 'ipv4Compatible'],
    ['2002:7f00:1::', false, '6to4'],
    ['not an address', false, 'invalid'],
    ['8.8.8.8', true, 'unicast'],
    ['2606:4700::1111', true, 'unicast'],
    ['::ffff:8.8.8.8', true, 'ipv4Mapped:unicast'],
    ['64:ff9b::808:808', true, 'ipv4Mapped:unicast'],
  ];

  it.each(table)('%s is public: %s (%s)', (address, isPublic, range) => {
    expect(classifyAddress(address)).toEqual({ public: isPublic, range });
    expect(isPublicAddress(address)).toBe(isPublic);
  });
});

type LookupResult = { error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };

const lookup = (hostname: string, all: boolean): Promise<LookupResult> =>
  new Promise((resolve) => {
    guardedLookup()(hostname, { all }, (error, address, family) => resolve({ error, address, family }));
  });

describe('guardedLookup', () => {
  it('refuses a name that resolves to a loopback address, saying what to do', async () => {
    const { error } = await lookup('localhost', false);
    expect(error).toBeInstanceOf(AccessDeniedError);
    expect(error?.message).toMatch(/localhost: it resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect(error?.message).toMatch(/allowPrivateNetwork: true/);
  });

  it('passes a public address through, in both callback shapes', async () => {
    expect(await lookup('8.8.8.8', false)).toEqual({ error: null, address: '8.8.8.8', family: 4 });
    expect(await lookup('8.8.8.8', true)).toEqual({
      error: null,
      address: [{ address: '8.8.8.8', family: 4 }],
      family: undefined,
    });
  });
});
