/**
 * The TypeScript compiler, loaded on first use: it is large (about 0.4 s to
 * load), and most runs never parse a module with it.
 */
import type TS from 'typescript';

let loading: Promise<typeof TS> | undefined;

export function loadTypescript(): Promise<typeof TS> {
  loading ??= import('typescript').then((m) => m.default);
  return loading;
}
