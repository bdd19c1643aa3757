import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ErrorCode } from '../../platform/common/errors/error-codes';

/**
 * The page may load its own scripts, styles and images and talk to this origin only; no inline script or style,
 * no framing, no form posting elsewhere (docs/contract.md "Administration page").
 */
export const ADMIN_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The framing and script policy of both pages, /admin and /docs (docs/contract.md "Administration page"). */
export const PAGE_SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': ADMIN_PAGE_CSP,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

interface StaticFile {
  body: Buffer;
  type: string;
}

/** The folder `npm run build` writes the page to: `dist/admin` under the package root, from source or from dist. */
export function adminPageDir(from = __dirname): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return resolve(dir, 'dist', 'admin');
}

function load(dir: string): { index: Buffer | null; assets: Map<string, StaticFile> } {
  const assets = new Map<string, StaticFile>();
  const indexPath = join(dir, 'index.html');
  if (!existsSync(indexPath)) return { index: null, assets };
  const assetDir = join(dir, 'assets');
  for (const name of existsSync(assetDir) ? readdirSync(assetDir) : []) {
    const type = TYPES[extname(name)];
    if (type) assets.set(name, { body: readFileSync(join(assetDir, name)), type });
  }
  return { index: readFileSync(indexPath), assets };
}

export function notFound(reply: FastifyReply, message: string): FastifyReply {
  return reply
    .code(404)
    .type('application/json; charset=utf-8')
    .send({ error: [ErrorCode.NotFound], message });
}

/**
 * Serves the administration page at `/admin` straight from Fastify, outside Nest's guards, so it is never rate
 * limited and costs the API nothing per request. The build is small (one script, one style sheet) and its asset
 * names carry a content hash, so it is read once at start and the assets are cached for good by browsers.
 */
export function registerAdminPage(fastify: FastifyInstance, dir = adminPageDir()): void {
  const { index, assets } = load(dir);

  const sendIndex = (_request: unknown, reply: FastifyReply) => {
    reply.headers(PAGE_SECURITY_HEADERS);
    if (!index) return notFound(reply, 'The administration page is not built: run "npm run build".');
    // Always revalidated, so a deploy's new asset names are picked up at once.
    return reply.header('cache-control', 'no-cache').type(TYPES['.html']).send(index);
  };
  fastify.get('/admin', sendIndex);
  fastify.get('/admin/', sendIndex);
  fastify.get<{ Params: { name: string } }>('/admin/assets/:name', (request, reply) => {
    reply.headers(PAGE_SECURITY_HEADERS);
    const file = assets.get(request.params.name);
    if (!file) return notFound(reply, 'No such file of the administration page.');
    return reply.header('cache-control', 'public, max-age=31536000, immutable').type(file.type).send(file.body);
  });
}
