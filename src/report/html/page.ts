import { createHash } from 'node:crypto';
import { STYLE } from './assets.js';
import { esc } from './escape.js';

const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * Nothing but the page's own style and script (when it has one) may run or
 * apply, and nothing may be fetched: a `<script>` or `<style>` a patch
 * smuggled into a test name or an identity would be inert even if escaping
 * ever missed one.
 */
export function contentSecurityPolicy(script: string | undefined): string {
  const csp = [
    "default-src 'none'",
    `style-src ${hash(STYLE)}`,
    `script-src ${script !== undefined ? hash(script) : "'none'"}`,
    "img-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  // Our own constant, attribute-safe as it is (single quotes, base64): written unescaped so it reads as a policy.
  if (/["&<>]/.test(csp)) throw new Error('the report CSP must not need escaping');
  return csp;
}

/** A self-contained page's head, up to and including `<body>`: its policy, its title, the shared style. */
export function pageHead(title: string, csp: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>`;
}
