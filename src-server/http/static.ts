import { createReadStream, promises as fs } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import type { Context, Next } from 'koa';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The UI talks only to this origin and never evaluates strings; inline styles are set through
 * the CSSOM by React, which CSP does not govern, so no 'unsafe-inline' is needed.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Serves the built UI. Mounted after the API router, so it only sees requests no route took.
 * A GET for a path without a file behind it falls back to index.html when a browser asks for a
 * page (client-side routes such as /requests/42); API clients (no `text/html` in Accept) and
 * anything under /api/ keep getting the JSON 404.
 */
export function staticFiles(dir: string) {
  const root = resolve(dir);
  const index = join(root, 'index.html');

  return async (ctx: Context, next: Next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.path.startsWith('/api/')) return next();
    let file = await fileAt(root, ctx.path);
    if (!file) {
      const wantsPage = (ctx.get('accept') || '').includes('text/html') && extname(ctx.path) === '';
      if (!wantsPage) return next();
      file = index;
    }
    const stat = await fs.stat(file).catch(() => null);
    if (!stat?.isFile()) return next();

    const type = TYPES[extname(file)] ?? 'application/octet-stream';
    ctx.status = 200;
    ctx.type = type;
    ctx.set('X-Content-Type-Options', 'nosniff');
    // Vite puts a content hash in every asset name, so those never change; index.html always can.
    ctx.set('Cache-Control', ctx.path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (type.startsWith('text/html')) {
      ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.set('X-Frame-Options', 'DENY');
    }
    // Koa answers HEAD without a body; opening a stream it would never read would leak a descriptor.
    if (ctx.method === 'GET') ctx.body = createReadStream(file);
    ctx.length = stat.size;
  };
}

/** The file a URL path names inside root, or null (traversal, directories, bad escapes). */
async function fileAt(root: string, urlPath: string): Promise<string | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const relative = decoded === '/' ? 'index.html' : decoded.replace(/^\/+/, '');
  const full = resolve(root, relative);
  if (full !== root && !full.startsWith(root + sep)) return null;
  const stat = await fs.stat(full).catch(() => null);
  return stat?.isFile() ? full : null;
}
