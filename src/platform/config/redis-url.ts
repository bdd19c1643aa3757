/** What `REDIS_URL` names, read without connecting; docs/contract.md "Running" lists the forms. */

export interface RedisNode {
  host: string;
  port: number;
}

export type RedisTarget =
  | { mode: 'server'; url: string; tls: boolean }
  | { mode: 'sentinel'; nodes: RedisNode[]; masterName: string; username?: string; password?: string; tls: boolean }
  | { mode: 'cluster'; nodes: RedisNode[]; username?: string; password?: string; tls: boolean };

/** A `REDIS_URL` that names no Redis; the message never repeats the value (it may carry a password). */
export class RedisUrlError extends Error {}

const SCHEME = /^(rediss?)(\+sentinel|\+cluster)?:\/\/(.*)$/i;
const DEFAULT_PORT = { sentinel: 26379, cluster: 6379 } as const;

/** Reads `REDIS_URL`; throws a {@link RedisUrlError} saying what is wrong with it. */
export function parseRedisUrl(raw: string): RedisTarget {
  const match = SCHEME.exec(raw);
  if (!match) {
    throw new RedisUrlError(
      'must be a redis://, rediss://, redis+sentinel://, rediss+sentinel://, redis+cluster:// or rediss+cluster:// URL',
    );
  }
  const tls = match[1].toLowerCase() === 'rediss';
  const kind = match[2]?.toLowerCase();
  if (!kind) return { mode: 'server', url: parseServerUrl(raw), tls };
  const mode = kind === '+sentinel' ? 'sentinel' : 'cluster';
  const rest = match[3];
  const at = rest.lastIndexOf('@', rest.indexOf('/') === -1 ? undefined : rest.indexOf('/'));
  const credentials = at === -1 ? undefined : rest.slice(0, at);
  const afterCredentials = at === -1 ? rest : rest.slice(at + 1);
  const slash = afterCredentials.indexOf('/');
  const hostList = slash === -1 ? afterCredentials : afterCredentials.slice(0, slash);
  const path = slash === -1 ? '' : afterCredentials.slice(slash + 1);
  const nodes = hostList.split(',').map((entry) => parseNode(entry, DEFAULT_PORT[mode]));
  const { username, password } = parseCredentials(credentials);
  if (mode === 'cluster') {
    if (path !== '') throw new RedisUrlError('names a database or path, which a Redis Cluster does not have');
    return { mode, nodes, username, password, tls };
  }
  const masterName = decode(path);
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(masterName)) {
    throw new RedisUrlError('must end with /MASTER_NAME, the name Redis Sentinel knows the master by');
  }
  return { mode, nodes, masterName, username, password, tls };
}

function parseServerUrl(raw: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new RedisUrlError('is not a valid URL');
  }
  if (parsed.hostname === '') throw new RedisUrlError('names no host');
  if (parsed.pathname !== '' && parsed.pathname !== '/' && !/^\/\d{1,2}$/.test(parsed.pathname)) {
    throw new RedisUrlError('may only name a database number after the host, like /0');
  }
  if (parsed.search !== '' || parsed.hash !== '') throw new RedisUrlError('must not carry a query or fragment');
  return raw;
}

function parseNode(entry: string, defaultPort: number): RedisNode {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(entry.trim());
  const port = match?.[2] === undefined ? defaultPort : Number(match[2]);
  if (!match || port < 1 || port > 65535) {
    throw new RedisUrlError('must list its nodes as host:port, separated by commas');
  }
  return { host: match[1].replace(/^\[|\]$/g, ''), port };
}

function parseCredentials(credentials: string | undefined): { username?: string; password?: string } {
  if (credentials === undefined || credentials === '') return {};
  const colon = credentials.indexOf(':');
  const username = decode(colon === -1 ? credentials : credentials.slice(0, colon));
  const password = colon === -1 ? undefined : decode(credentials.slice(colon + 1));
  return { username: username === '' ? undefined : username, password };
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new RedisUrlError('has a malformed %-escape');
  }
}
