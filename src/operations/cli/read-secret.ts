/** Longest secret read; anything longer is refused by the command's own validation. */
const MAX_BYTES = 64 * 1024;

/**
 * Reads one secret from standard input: the first line of what is piped in (`printf %s "$PW" | npm run cli ...`),
 * or, at a terminal, a line typed after a prompt on standard error with nothing echoed. Never from argv, where
 * npm prints it back and `ps` shows it to every user of the machine.
 */
export function readSecret(prompt: string): Promise<string> {
  return process.stdin.isTTY ? readFromTerminal(prompt) : readFromPipe();
}

function firstLine(text: string): string {
  return text.split(/\r?\n/, 1)[0] ?? '';
}

function readFromPipe(): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stdin = process.stdin;
    stdin.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > MAX_BYTES) stdin.destroy();
    });
    stdin.once('end', () => resolve(firstLine(Buffer.concat(chunks).toString('utf8'))));
    stdin.once('close', () => resolve(firstLine(Buffer.concat(chunks).toString('utf8'))));
    stdin.once('error', reject);
  });
}

function readFromTerminal(prompt: string): Promise<string> {
  return new Promise((resolve) => {
    const stdin = process.stdin;
    process.stderr.write(prompt);
    stdin.setRawMode(true);
    stdin.setEncoding('utf8');
    let typed = '';
    const finish = (value: string) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      resolve(value);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish(typed);
        // Ctrl-C: abandon without a secret; the caller reports the empty answer.
        if (char === '\u0003') return finish('');
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    stdin.on('data', onData);
    stdin.resume();
  });
}
