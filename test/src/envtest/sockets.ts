// Which TCP addresses a process listens on, read from Linux /proc (no ss/netstat needed). Lets the
// tests prove that nothing of the environment listens beyond 127.0.0.1.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m?.[1]) inodes.add(m[1]);
    } catch {
      // fd closed meanwhile
    }
  }
  return inodes;
}

/** /proc/net/tcp stores IPv4 addresses as little-endian hex, IPv6 as four little-endian words. */
function decodeAddress(hex: string): string {
  if (hex.length === 8) {
    return [3, 2, 1, 0].map((i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join('.');
  }
  const words = [0, 1, 2, 3].map((w) => hex.slice(w * 8, w * 8 + 8).match(/../g)!.reverse().join(''));
  return words.join('').match(/.{4}/g)!.map((g) => g.replace(/^0+(?=.)/, '')).join(':');
}

/** Listening sockets of `pid` as "address:port" strings. */
export function listeningAddresses(pid: number): string[] {
  const inodes = socketInodes(pid);
  const out: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.trim().split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      const [local, state, inode] = [cols[1], cols[3], cols[9]];
      if (state !== '0A' || !local || !inode || !inodes.has(inode)) continue; // 0A = LISTEN
      const [addr = '', port = '0'] = local.split(':');
      out.push(`${decodeAddress(addr)}:${parseInt(port, 16)}`);
    }
  }
  return out;
}
