import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';

/** npm as a user's shell finds it (on PATH; its `node` is then the one first on PATH too). */
export const NPM = 'npm';

/** The parent pid of every process on the machine, read from /proc (Linux, as CI and this team's machine). */
function parents(): Map<number, number> {
  const table = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name in field 2 may hold spaces and parentheses: the fields after the last ')' are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      table.set(Number(entry), ppid);
    } catch {
      // Exited while being read.
    }
  }
  return table;
}

/** Every process below `pid` (children, grandchildren…), as they stand now. */
export function descendants(pid: number): number[] {
  const table = parents();
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const [child, ppid] of table) {
      if (ppid === parent) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

/** Whether a process with this pid still exists and is not a zombie waiting to be reaped. */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Whether something accepts connections on 127.0.0.1:port. */
export function accepting(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(1000, () => (socket.destroy(), done(false)));
    socket.once('error', () => done(false));
    socket.once('connect', () => (socket.destroy(), done(true)));
  });
}
