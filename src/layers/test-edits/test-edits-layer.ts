/**
 * What the patch did to the test side that no finding explained. The layers
 * before this one attach the edits behind their findings (a REGRESSION names
 * the narrowed strategy that hid it); an edit left over is a weakened test
 * with no failure beneath it yet: TEST_WEAKENED, one finding per edited test
 * (or per file, for an edit to a whole file), so a reviewer knows what to look
 * at even when the base's tests still pass. `test_edits.json` next to the
 * scorecard lists every edit and the finding that explained it, if any.
 */
import { switchOf } from '../../config/layers-on.js';
import { acceptedByHuman, overridable } from '../override.js';
import { agreed } from '../shard-merge.js';
import type { Finding, Layer, LayerContext, LayerOutcome, Override } from '../types.js';
import { testEditsOf } from './analysis.js';
import { editClause, editEvidence, MAX_ATTACHED } from './attach.js';
import { editLocation, type TestEdit } from './model.js';

const LAYER = 'test-edits';

export const testEditsLayer: Layer = {
  name: LAYER,
  enabled: switchOf(LAYER),
  contractFiles: () => [],
  async run(ctx: LayerContext) {
    const analysis = await testEditsOf(ctx);
    const left = new Set(analysis.unexplained());
    const facts: EditFacts = {
      reject: ctx.config.tests?.weakened === 'reject',
      variable: ctx.config.tests?.overrideTokenEnv ?? 'PATCHGATE_TESTS_OVERRIDE',
      overridden: false,
      files: analysis.fileCount,
      edits: analysis.edits.map((edit) => ({ edit, explained: !left.has(edit) })),
    };
    facts.overridden = facts.reject && ctx.overrides.active(facts.variable);
    // On a shard, an edit another shard's finding explains is no weakened test: the merge decides.
    if (ctx.shard) return { findings: [], part: facts };
    return judgeEdits(facts);
  },
  shards: {
    merge(parts) {
      const all = parts.map((p) => p.part as EditFacts);
      const first = all[0] as EditFacts;
      agreed(
        'the test-side edits',
        all.map((f) => ({ ...f, edits: f.edits.map((e) => e.edit) })),
      );
      // Explained when any shard's finding explained it: that finding is in the merged run.
      return judgeEdits({
        ...first,
        edits: first.edits.map((e, i) => ({
          edit: e.edit,
          explained: all.some((f) => f.edits[i]?.explained),
        })),
      });
    },
  },
};

/** Every test-side edit of the patch, whether a finding explained it, and the rules for the rest. */
interface EditFacts {
  reject: boolean;
  variable: string;
  overridden: boolean;
  files: number;
  edits: { edit: TestEdit; explained: boolean }[];
}

/** TEST_WEAKENED for each edited test no finding explained, and test_edits.json. */
function judgeEdits(facts: EditFacts): LayerOutcome {
  const { reject, variable, overridden } = facts;
  const overrides: Override[] = [];
  const groups = new Map<string, TestEdit[]>();
  for (const { edit: e, explained } of facts.edits) {
    if (explained) continue;
    const key = `${e.file}\u241f${e.test ?? ''}`;
    const g = groups.get(key);
    if (g) g.push(e);
    else groups.set(key, [e]);
  }
  const findings: Finding[] = [];
  for (const edits of groups.values()) {
    const first = edits[0]!;
    let f = weakened(first, edits, reject);
    if (reject) f = overridable(f, variable);
    if (overridden) f = acceptedByHuman(f, first.file, variable, overrides);
    findings.push(f);
  }
  return {
    findings,
    overrides,
    artifacts: [
      {
        name: 'test_edits.json',
        content: `${JSON.stringify(
          {
            schema: 'patchgate/test-edits@1',
            files: facts.files,
            edits: facts.edits.map(({ edit, explained }) => ({ ...editEvidence(edit), explained })),
          },
          null,
          2,
        )}\n`,
      },
    ],
  };
}

function weakened(first: TestEdit, edits: readonly TestEdit[], reject: boolean): Finding {
  const what =
    first.test !== undefined
      ? `test ${first.test}${first.headTest !== undefined ? ` (now ${first.headTest})` : ''} of ${first.baseFile ?? first.file}`
      : first.file;
  return {
    code: 'TEST_WEAKENED',
    layer: LAYER,
    severity: reject ? 'reject' : 'warn',
    message: `the head changed ${what} so that it checks less, with no failing base test behind it (yet): ${editClause(edits)}`,
    evidence: {
      file: first.file,
      ...(first.baseFile !== undefined ? { baseFile: first.baseFile } : {}),
      ...((first.headLine ?? first.baseLine) !== undefined ? { line: first.headLine ?? first.baseLine } : {}),
      ...(first.test !== undefined ? { test: first.test } : {}),
      edit: first.kind,
      edits: edits.slice(0, MAX_ATTACHED).map(editEvidence),
      ...(edits.length > MAX_ATTACHED ? { editsCount: edits.length } : {}),
      next: `look at ${editLocation(first)}: if the edit hides a failure, restore what the test checked; if it is intended, land the test change in a human commit of its own`,
    },
  };
}
