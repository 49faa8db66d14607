// Which local TCP ports a process holds, read from /proc (its socket descriptors, matched by inode against the
// kernel's TCP tables). A proxy uses it to tell one controller's connections from another's: every controller
// dials from 127.0.0.1, so the client's port is the only thing that says whose connection it is.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]!);
    } catch {
      // closed while we looked
    }
  }
  return inodes;
}

/** The local ports of the TCP sockets process `pid` has open (IPv4 and IPv6). */
export function localTcpPortsOf(pid: number): Set<number> {
  const inodes = socketInodes(pid);
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || !inodes.has(fields[9]!)) continue;
      ports.add(parseInt(fields[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}
