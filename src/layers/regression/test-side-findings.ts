/**
 * What reading the base's runner configuration could not settle. A value
 * under a key that loads code into the test process (a setup file computed
 * by a function, a spread of a package's config) names files the gate cannot
 * know, so it cannot keep the head's copies of them out of the overlay: the
 * gate cannot decide (`TEST_CONFIG_UNREAD`, an error), unless the base config
 * lists the test side itself in `tests.paths`, which a human then owns (a
 * warning). A module the configuration imports that code imports too stays
 * the head's; a patch that changes it changes how the base's tests are
 * configured, and a human accepts that (`TEST_CONFIG_IMPORT_CHANGED`).
 */
import type { Finding, LayerContext } from '../types.js';

export function testSideFindings(ctx: LayerContext, layer: string): Finding[] {
  const findings: Finding[] = [];
  const owned = ctx.config.tests?.paths !== undefined;
  for (const u of ctx.overlay.unread)
    findings.push({
      code: 'TEST_CONFIG_UNREAD',
      layer,
      // A module alias the gate cannot read redirects to production code unless it names a stub: worth a
      // reviewer's look, not a run the gate cannot decide (a repository's first run must not stop there).
      severity: owned || u.mapping ? 'warn' : 'error',
      message: `${u.file}:${u.line}: ${u.key}: the gate cannot read ${JSON.stringify(u.value)} (${u.why}), so it cannot tell which files the runner loads from it${owned ? '; tests.paths in the base config is the test side' : ''}`,
      evidence: {
        path: u.file,
        line: u.line,
        key: u.key,
        value: u.value,
        why: u.why,
        next: owned
          ? 'check that tests.paths covers the files this value names'
          : u.mapping
            ? 'if this alias points at a test stub, write its target as a literal path or list it in tests.paths; an alias to production code needs nothing'
            : 'write the value as literal paths (or path.join / new URL with literal parts), or list the test side, these files included, in tests.paths of the base config',
      },
    });
  const changed = new Map<string, string>();
  for (const c of ctx.changes) {
    changed.set(c.path, c.kind);
    if (c.from !== undefined) changed.set(c.from, c.kind);
  }
  for (const s of ctx.overlay.shared) {
    const kind = changed.get(s.path);
    if (kind === undefined) continue;
    findings.push({
      code: 'TEST_CONFIG_IMPORT_CHANGED',
      layer,
      severity: 'reject',
      message: `${s.path}: the patch changes a module the base's runner configuration loads (${s.from}:${s.line}), and ${s.alsoFrom} loads it too, so the overlay runs the head's copy`,
      evidence: {
        path: s.path,
        change: kind,
        importedBy: s.from,
        line: s.line,
        alsoFrom: s.alsoFrom,
        next: 'move what the configuration needs out of shared code (or the change into its own human commit, accepted with the override variable)',
      },
    });
  }
  return findings;
}
