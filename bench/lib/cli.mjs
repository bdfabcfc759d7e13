// What every benchmark script does before it measures: read its flags, check
// that the build it imports exists, and, in the child processes that measure
// memory, answer `--idle` (start and import, no work: the floor peak RSS sits on).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** `--runs N` (at least `min`), `--only NAME`, and boolean flags by name. */
export function benchArgs(argv = process.argv.slice(2), { runs = 3, min = 1 } = {}) {
  const value = (flag) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const asked = value('--runs');
  return {
    runs: asked === undefined ? runs : Math.max(min, Number(asked) || runs),
    only: value('--only'),
    has: (flag) => argv.includes(flag),
  };
}

/** Exits 0 with a hint when `url` (a file of the build) is missing: a benchmark is a measurement, never a failure. */
export function requireBuild(name, url) {
  if (fs.existsSync(fileURLToPath(url))) return;
  console.error(`${name}: ${fileURLToPath(url)} not found; run \`npm run build\` first`);
  process.exit(0);
}

/** In a `--idle` child: import the module measured, report peak RSS, exit. */
export async function answerIdle(moduleUrl) {
  if (process.argv[2] !== '--idle') return;
  await import(moduleUrl.href);
  process.stdout.write(JSON.stringify({ maxRssBytes: process.resourceUsage().maxRSS * 1024 }));
  process.exit(0);
}
