import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Which of `pids` has a TCP socket bound to local port `port` (Linux /proc): a receiver seeing a request from
 * port P can name the process that sent it.
 */
export function pidOwningLocalPort(port: number, pids: number[]): number | undefined {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      if (parseInt(fields[1].split(':')[1], 16) === port) inodes.add(fields[9]);
    }
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (match && inodes.has(match[1])) return pid;
      } catch {
        // Closed meanwhile.
      }
    }
  }
  return undefined;
}
