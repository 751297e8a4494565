import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Controller, Get, Header, Param, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { marked } from 'marked';
import { Public } from '../auth/auth.decorators';
import { ERROR_CODES, isErrorCode } from '../http/problems/error-codes';
import { Problem } from '../http/problems/problem';
import { ERROR_PAGE_ROUTE } from './docs-paths';
import { escapeHtml, htmlPage } from './html-page';
import { OpenApiRegistry } from './openapi/openapi-registry';

const inlineCode = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

/** The documentation a client follows: OpenAPI documents, error pages, the changelog. */
@ApiExcludeController()
@Public()
@Controller({ path: 'docs', version: VERSION_NEUTRAL })
export class DocsController {
  private readonly changelogHtml = htmlPage(
    'Changelog',
    marked.parse(readChangelog(), { async: false }),
  );

  constructor(private readonly registry: OpenApiRegistry) {}

  @Get('v1/openapi.json')
  v1() {
    return this.registry.get().v1;
  }

  @Get('v2/openapi.json')
  v2() {
    return this.registry.get().v2;
  }

  @Get('errors')
  @Header('Content-Type', 'text/html; charset=utf-8')
  errors(): string {
    const items = Object.entries(ERROR_CODES)
      .map(
        ([code, e]) =>
          `<li><a href="errors/${code}"><code>${code}</code></a> (${e.status}): ${escapeHtml(e.title)}</li>`,
      )
      .join('\n');
    return htmlPage('Error codes', `<h1>Error codes</h1><ul>${items}</ul>`);
  }

  @Get(ERROR_PAGE_ROUTE)
  @Header('Content-Type', 'text/html; charset=utf-8')
  error(@Param('code') code: string): string {
    if (!isErrorCode(code)) throw new Problem('not_found', `There is no error code ${code}.`);
    const e = ERROR_CODES[code];
    return htmlPage(
      `${code}: ${e.title}`,
      `<p><a href="../errors">All error codes</a></p>
<h1><code>${code}</code>: ${escapeHtml(e.title)}</h1>
<p>HTTP status <strong>${e.status}</strong>, body <code>application/problem+json</code> with <code>"code": "${code}"</code>.</p>
<p>${inlineCode(e.description)}</p>
<p>Every problem carries <code>requestId</code>; quote it when you ask for help.</p>`,
    );
  }

  @Get('changelog')
  @Header('Content-Type', 'text/html; charset=utf-8')
  changelog(): string {
    return this.changelogHtml;
  }
}

/** CHANGELOG.md at the project root, found from source (src/) and build (dist/src/) alike. */
function readChangelog(): string {
  for (let dir = __dirname, i = 0; i < 5; dir = dirname(dir), i++) {
    const file = join(dir, 'CHANGELOG.md');
    if (existsSync(file)) return readFileSync(file, 'utf8');
  }
  return '# Changelog\n\nThe changelog is not available in this build.';
}
