/**
 * Ports for the outside parts that cannot listen on port 0 and report the port they got
 * (redis-server, prometheus): a random one below the OS's ephemeral range.
 *
 * The OS hands out ports from its ephemeral range (net.ipv4.ip_local_port_range) to every
 * listen on port 0 and as the local port of every outgoing connection. A Redis port from that
 * range is exposed while the Redis is stopped (the outage tests stop and restart it on the
 * same port): any process asking for a free port may get it, and a client reconnecting to it
 * may get it as its own local port, which on Linux connects the socket to itself (TCP
 * simultaneous open) instead of being refused. Below the range, neither can happen: only a
 * process naming that very port could take it. If it is taken, the part fails to bind and the
 * caller tries another.
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';

export function portBelowEphemeralRange(): number {
  let low = 32_768;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low;
  } catch {
    // not Linux: the IANA range starts higher still (49152)
  }
  const from = Math.min(10_000, low - 1_000);
  return from + randomInt(low - from);
}
