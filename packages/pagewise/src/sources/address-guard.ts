/**
 * Keeps HTTP loads on the public internet: classifies IP addresses and supplies a DNS lookup for
 * `http.request` that refuses private ones at connect time, so a name that resolves (or re-resolves,
 * as in DNS rebinding) to an internal address cannot be reached.
 */
import dns from 'node:dns';
import { createRequire } from 'node:module';
import type { LookupFunction } from 'node:net';
import type IpAddr from 'ipaddr.js';
import { AccessDeniedError } from '../errors.js';

// ipaddr.js loads on the first address checked, not when pagewise is imported (test/packaging/lean-import.test.ts):
// most processes never load a page over HTTP.
const requireCjs = createRequire(import.meta.url);
let ipaddrModule: typeof IpAddr | undefined;
function ipaddr(): typeof IpAddr {
  ipaddrModule ??= requireCjs('ipaddr.js') as typeof IpAddr;
  return ipaddrModule;
}

/** The verdict on one IP address. */
export interface AddressClass {
  /** True only for globally routable unicast addresses. */
  public: boolean;
  /**
   * The range the address belongs to, as ipaddr.js names it (`unicast`, `loopback`, `private`,
   * `linkLocal`, `uniqueLocal`, `carrierGradeNat`, ...), or `invalid`. IPv4 embedded in IPv6 is
   * reported as `ipv4Mapped:<range of the IPv4 address>`.
   */
  range: string;
}

/**
 * Classifies an IP address. Only plain global unicast is public; loopback, private, link-local,
 * unique-local, CGNAT, multicast, broadcast, unspecified, documentation and other reserved ranges are
 * not. IPv4 carried inside IPv6 (`::ffff:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`) is judged by its IPv4
 * address; the deprecated IPv4-compatible form `::a.b.c.d` is never public.
 *
 * @example
 * classifyAddress('169.254.169.254'); // { public: false, range: 'linkLocal' }
 * classifyAddress('::ffff:10.0.0.1'); // { public: false, range: 'ipv4Mapped:private' }
 */
export function classifyAddress(address: string): AddressClass {
  if (!ipaddr().isValid(address)) return { public: false, range: 'invalid' };
  const parsed = ipaddr().parse(address);
  if (parsed.kind() === 'ipv4') return verdict(parsed.range());
  const v6 = parsed as IpAddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded !== undefined) {
    const inner = embedded.range();
    return { public: inner === 'unicast', range: `ipv4Mapped:${inner}` };
  }
  const range = v6.range();
  // ipaddr.js calls ::a.b.c.d unicast, but it is a deprecated form no public host uses.
  if (range === 'unicast' && v6.parts.slice(0, 6).every((part) => part === 0))
    return { public: false, range: 'ipv4Compatible' };
  return verdict(range);
}

/** True when `address` is a public unicast IP address; see {@link classifyAddress}. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address).public;
}

function verdict(range: string): AddressClass {
  return { public: range === 'unicast', range };
}

/** The IPv4 address inside `::ffff:0:0/96` or the well-known NAT64 prefix `64:ff9b::/96`. */
function embeddedIPv4(address: IpAddr.IPv6): IpAddr.IPv4 | undefined {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  const [p0, p1, p2, p3, p4, p5, p6 = 0, p7 = 0] = address.parts;
  // Only the well-known /96 is unwrapped; the local-use NAT64 prefix 64:ff9b:1::/48 stays refused
  // because its translator may sit inside the private network.
  if (p0 === 0x64 && p1 === 0xff9b && p2 === 0 && p3 === 0 && p4 === 0 && p5 === 0) {
    return new (ipaddr().IPv4)([p6 >> 8, p6 & 0xff, p7 >> 8, p7 & 0xff]);
  }
  return undefined;
}

/** The advice every refusal ends with. */
export const PRIVATE_NETWORK_HINT =
  'Set allowPrivateNetwork: true in createHttpSource to read from local or internal servers.';

/**
 * A `lookup` for `http.request` / `https.request` that resolves every address of the host and fails
 * with an `AccessDeniedError` when any of them is not public. Checking all of them (not only the one
 * used) means a host cannot pass with one public address and connect through a private one.
 */
export function guardedLookup(): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, family: options.family, hints: options.hints }, (error, addresses) => {
      if (error) {
        callback(error, '');
        return;
      }
      for (const { address } of addresses) {
        const { public: isPublic, range } = classifyAddress(address);
        if (!isPublic) {
          callback(
            new AccessDeniedError(
              `Refused to connect to ${hostname}: it resolves to ${address}, a ${range} address, not a public one. ${PRIVATE_NETWORK_HINT}`,
            ),
            '',
          );
          return;
        }
      }
      const first = addresses[0];
      if (first === undefined) {
        callback(Object.assign(new Error(`No address found for ${hostname}.`), { code: 'ENOTFOUND' }), '');
      } else if (options.all) {
        callback(null, addresses);
      } else {
        callback(null, first.address, first.family);
      }
    });
  };
}
