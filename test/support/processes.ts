import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
export const SERVICE_ENTRY = join(ROOT, 'dist', 'src', 'main.js');
export const CLI_ENTRY = join(ROOT, 'dist', 'src', 'cli.js');

/** Settings a test process gets unless it says otherwise: cheap password hashing, no demo data. */
export const CHILD_TEST_ENV: Record<string, string> = {
  NODE_ENV: 'test',
  ARGON2_MEMORY_KIB: '1024',
  ARGON2_TIME_COST: '1',
  SEED_DEMO: 'false',
  // As test-app.ts's TEST_ENV: load from one address must not meet the concurrency cap of 20 unless a test asks
  // for it (the cap's own system test sets CONCURRENCY_LIMIT itself).
  CONCURRENCY_LIMIT: '1000',
};

/** The service's own settings (and Node's), never inherited from the shell that runs jest. */
const SERVICE_KEYS = new RegExp(
  '^(PORT|HOST|NODE_ENV|NODE_OPTIONS|DATA_DIR|TRUST_PROXY|RATE_LIMIT_SCALE|CONCURRENCY_.*|MIGRATIONS_RUN|' +
    'SEED_DEMO|LOG_LEVEL|' +
    'SHUTDOWN_TIMEOUT_MS|(JWT|DATABASE|REDIS|ARGON2)_.*)$',
);

/** Fails the suite with the fix when the compiled service is missing (`npm test` builds; bare jest does not). */
export function requireBuild(): void {
  for (const entry of [SERVICE_ENTRY, CLI_ENTRY]) {
    if (!existsSync(entry)) {
      throw new Error(`${entry} is missing: run "npm run -s build" first (npm test and npm run test:e2e do it).`);
    }
  }
}

function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !SERVICE_KEYS.test(key)));
  return { ...inherited, ...env };
}

const running = new Set<ChildProcess>();

/** SIGKILLs every child a test started and has not seen exit; for afterAll/afterEach, so a failure leaks none. */
export async function killChildren(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.once('exit', () => done());
          child.kill('SIGKILL');
        }),
    ),
  );
}

export interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running child with its output so far. */
export class Child {
  stdout = '';
  stderr = '';
  readonly exited: Promise<Exited>;

  constructor(readonly process: ChildProcess) {
    running.add(process);
    process.stdout!.setEncoding('utf8').on('data', (chunk: string) => (this.stdout += chunk));
    process.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((done) => {
      // 'close', not 'exit': the pipes are drained by then, so the output is complete.
      process.once('close', (code, signal) => {
        running.delete(process);
        done({ code, signal, stdout: this.stdout, stderr: this.stderr });
      });
    });
  }

  get stderrLines(): string[] {
    return this.stderr.split('\n').filter((line) => line !== '');
  }

  /** Resolves with the exit, or rejects (after killing the child) if it takes longer than `ms`. */
  async exit(ms: number): Promise<Exited> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        this.process.kill('SIGKILL');
        reject(new Error(`process did not exit within ${ms} ms; stderr: ${this.stderr}`));
      }, ms);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

export function spawnCommand(command: string, args: string[], env: Record<string, string>): Child {
  // The working directory is not the repository, so a developer's .env cannot leak into a test.
  return new Child(spawn(command, args, { cwd: tmpdir(), env: childEnv(env), stdio: 'pipe' }));
}

export function spawnNode(entry: string, args: string[], env: Record<string, string>): Child {
  return spawnCommand(process.execPath, [entry, ...args], env);
}

/** Runs the compiled operator CLI to completion; `input` is its standard input (closed either way). */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 40_000, input = ''): Promise<Exited> {
  const child = spawnNode(CLI_ENTRY, args, env);
  child.process.stdin!.end(input);
  return child.exit(timeoutMs);
}

/** The service's JSON log records on standard output, skipping plain-text lines such as the demo banner. */
export function logRecords(stdout: string): Array<Record<string, unknown>> {
  return stdout.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

/** How a process ended, as one value: a failed comparison then shows the signal that killed it, not just `null`. */
export function exitStatus(exited: Exited): { code: number | null; signal: NodeJS.Signals | null } {
  return { code: exited.code, signal: exited.signal };
}

export const CLEAN_EXIT = { code: 0, signal: null };

export interface RunningService {
  child: Child;
  url: string;
  /** Sends the signal and waits for the exit. */
  stop(signal?: NodeJS.Signals, ms?: number): Promise<Exited>;
}

/** Starts the compiled service and waits for its "listening" log line, which carries the URL. */
export function startService(env: Record<string, string>, timeoutMs = 30_000): Promise<RunningService> {
  return serviceStarted(spawnNode(SERVICE_ENTRY, [], env), timeoutMs);
}

/** Waits for a child running the service to log "listening", which carries the URL. */
export async function serviceStarted(child: Child, timeoutMs = 30_000): Promise<RunningService> {
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => {
      child.process.kill('SIGKILL');
      reject(new Error(`the service did not log "listening" within ${timeoutMs} ms; stderr: ${child.stderr}`));
    }, timeoutMs);
    const onData = () => {
      const listening = logRecords(child.stdout).find((record) => record.msg === 'listening');
      if (!listening) return;
      clearTimeout(timer);
      child.process.stdout!.off('data', onData);
      resolveUrl(String(listening.url));
    };
    child.process.stdout!.on('data', onData);
    void child.exited.then(({ code, signal, stderr }) => {
      clearTimeout(timer);
      reject(new Error(`the service exited (code ${code}, signal ${signal}) before listening; stderr: ${stderr}`));
    });
  });
  return {
    child,
    url,
    stop: (signal = 'SIGTERM', ms = 10_000) => {
      child.process.kill(signal);
      return child.exit(ms);
    },
  };
}
