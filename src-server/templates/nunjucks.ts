import { createRequire } from 'node:module';
import type Nunjucks from 'nunjucks';

/**
 * nunjucks, loaded at the first jinja2 template rather than with the server: it is 90 KB of code
 * (lexer, parser, compiler, runtime) that a server only logging requests never runs. The load is
 * synchronous (nunjucks is CommonJS), so rendering stays synchronous; the bundle leaves it out.
 */
const load = createRequire(import.meta.url);
let loaded: typeof Nunjucks | undefined;

export const nunjucks = (): typeof Nunjucks => (loaded ??= load('nunjucks') as typeof Nunjucks);
