import { execFileSync } from 'node:child_process';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';

/**
 * summary.md rendered as GitHub renders it: by cmark-gfm (GitHub's own fork
 * of cmark, Debian's `cmark-gfm`) with GitHub's extensions, and by micromark
 * with GFM (a second, independent implementation of the spec). Raw HTML is
 * let through (`--unsafe`, `allowDangerousHtml`) so that any that got into
 * the markdown shows up as a tag: GitHub's sanitizer keeps `<img>`, `<a>`,
 * `<details>` and more.
 */
export type Renderer = 'cmark-gfm' | 'micromark';
export const RENDERERS: readonly Renderer[] = ['cmark-gfm', 'micromark'];

export function renderGfm(markdown: string, renderer: Renderer): string {
  if (renderer === 'micromark')
    return micromark(markdown, {
      allowDangerousHtml: true,
      extensions: [gfm()],
      htmlExtensions: [gfmHtml()],
    });
  try {
    return execFileSync(
      'cmark-gfm',
      ['--unsafe', '-e', 'table', '-e', 'autolink', '-e', 'strikethrough', '-e', 'tasklist'],
      { input: markdown, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error('cmark-gfm is not installed: `apt-get install -y cmark-gfm` (.ci/run does)');
    throw err;
  }
}

const ENTITY: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'" };
/** Text of rendered HTML with its entities decoded. */
export function decode(html: string): string {
  return html.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_m, e: string) => ENTITY[e] ?? '');
}

/** The tags a rendered summary.md may contain: what our template makes, and nothing the patch could add. */
export const SUMMARY_TAGS = new Set([
  'h2',
  'p',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'code',
  'br',
  'strong',
  'ul',
  'li',
]);

/** Every tag name in rendered HTML, opening or closing, with how often it appears. */
export function tagNames(html: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9-]*)/g)) {
    const name = (m[1] as string).toLowerCase();
    out.set(name, (out.get(name) ?? 0) + 1);
  }
  return out;
}

/** The rendered HTML with every `<code>…</code>` element taken out: what a reader sees as live Markdown. */
export function outsideCode(html: string): string {
  return html.replace(/<code>[\s\S]*?<\/code>/g, '');
}

/** The decoded text of every `<code>` element, in order. */
export function codeTexts(html: string): string[] {
  return [...html.matchAll(/<code>([\s\S]*?)<\/code>/g)].map((m) => decode(m[1] as string));
}

/** The rows of every table: each row its cells' inner HTML. */
export function tableRows(html: string): string[][] {
  return [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((r) =>
    [...(r[1] as string).matchAll(/<t[hd](?: [^>]*)?>([\s\S]*?)<\/t[hd]>/g)].map((c) => c[1] as string),
  );
}
