import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonSyntaxError, parseJson } from '../../../src/json/parse.js';
import { CanonicalJsonError, canonicalDigest, pythonCanonicalJson } from '../../../src/json/python-dumps.js';
import { document, mutatedDocument, stringifiedValue } from '../../helpers/json-arbitraries.js';
import { pythonEnv } from '../../helpers/shared.js';

/**
 * Python is the specification here: every generated document goes to one
 * long-lived `python3` per test, which answers with what the seed's
 * digest_lock.py would compute, and ours must agree byte for byte, including
 * on which documents have no digest at all.
 */

// Requests are JSON-lines: each line is the document as a JSON string, so any
// JS string (lone surrogates included) arrives as the equivalent Python str.
const ORACLE = `
import hashlib, json, sys
# The 4300-digit int limit is part of what we mirror; an interpreter without it is the wrong oracle.
if sys.get_int_max_str_digits() != 4300:
    sys.exit("oracle needs CPython with the default int_max_str_digits of 4300")
while True:
    line = sys.stdin.buffer.readline()
    if not line:
        break
    doc = json.loads(line.decode("utf-8"))
    try:
        canonical = json.dumps(json.loads(doc), sort_keys=True, separators=(",", ":"))
        out = {"ok": canonical, "sha256": hashlib.sha256(canonical.encode()).hexdigest()}
    except Exception as e:
        out = {"error": type(e).__name__, "message": str(e)}
    sys.stdout.write(json.dumps(out) + "\\n")
    sys.stdout.flush()
`;

interface PythonVerdict {
  ok?: string;
  sha256?: string;
  error?: string;
  message?: string;
}

class PythonOracle {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: { resolve: (v: PythonVerdict) => void; reject: (e: Error) => void }[] = [];
  private pendingOut = '';
  private stderr = '';
  private dead: Error | undefined;

  constructor() {
    this.child = spawn('python3', ['-c', ORACLE], { env: pythonEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.pendingOut += chunk;
      for (let nl = this.pendingOut.indexOf('\n'); nl >= 0; nl = this.pendingOut.indexOf('\n')) {
        const line = this.pendingOut.slice(0, nl);
        this.pendingOut = this.pendingOut.slice(nl + 1);
        this.waiting.shift()?.resolve(JSON.parse(line) as PythonVerdict);
      }
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.child.on('error', (err) =>
      this.die(new Error(`cannot run python3 (needed as the oracle): ${err.message}`)),
    );
    this.child.on('exit', (code) =>
      this.die(new Error(`python3 oracle exited with ${code}: ${this.stderr}`)),
    );
  }

  private die(err: Error): void {
    this.dead ??= err;
    for (const w of this.waiting.splice(0)) w.reject(err);
  }

  ask(doc: string): Promise<PythonVerdict> {
    if (this.dead) return Promise.reject(this.dead);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(`${JSON.stringify(doc)}\n`);
    });
  }

  close(): Promise<void> {
    if (this.dead) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.stdin.end();
    });
  }
}

async function withOracle(body: (oracle: PythonOracle) => Promise<void>): Promise<void> {
  const oracle = new PythonOracle();
  try {
    await body(oracle);
  } finally {
    await oracle.close();
  }
}

type OurVerdict =
  | { ok: string; sha256: string }
  | { error: 'JSONDecodeError' | 'ValueError'; message: string };

function ours(doc: string): OurVerdict {
  try {
    const ok = pythonCanonicalJson(parseJson(doc, { duplicateKeys: 'keep', allowNonFinite: true }));
    return { ok, sha256: canonicalDigest(doc) };
  } catch (err) {
    // json.loads raises JSONDecodeError for syntax and ValueError for over-long ints.
    if (err instanceof JsonSyntaxError) return { error: 'JSONDecodeError', message: err.message };
    if (err instanceof CanonicalJsonError) return { error: 'ValueError', message: err.message };
    throw err;
  }
}

/** Asserts agreement; the message carries the document so a failure is reproducible by hand. */
async function agree(oracle: PythonOracle, doc: string): Promise<PythonVerdict> {
  const python = await oracle.ask(doc);
  const mine = ours(doc);
  const where = `document ${JSON.stringify(doc)}`;
  if (python.ok !== undefined) {
    expect(mine, `${where}: Python accepts it`).toEqual({ ok: python.ok, sha256: python.sha256 });
  } else {
    const outcome = 'error' in mine ? mine.error : `accepted as ${mine.ok}`;
    // Python converts each integer while scanning, so an over-long one before
    // a syntax error wins there; we report the syntax error first. Both reject.
    const allowed = python.error === 'ValueError' ? ['ValueError', 'JSONDecodeError'] : [python.error];
    expect(allowed, `${where}: Python says ${python.error}: ${python.message}; ours: ${outcome}`).toContain(
      outcome,
    );
  }
  return python;
}

// ----------------------------------------------------------------- the tests

const RUNS = 600;

describe('canonical JSON agrees with CPython json.dumps(json.loads(doc), sort_keys=True, separators=(",", ":"))', () => {
  it(`on ${RUNS} raw documents with big ints, odd floats, surrogates, duplicate keys and varied whitespace`, async () => {
    await withOracle(async (oracle) => {
      await fc.assert(
        fc.asyncProperty(document, async (doc) => {
          await agree(oracle, doc);
        }),
        { numRuns: RUNS },
      );
    });
  }, 60_000);

  it(`on ${RUNS} values from fc.jsonValue, serialised by JSON.stringify`, async () => {
    await withOracle(async (oracle) => {
      await fc.assert(
        fc.asyncProperty(stringifiedValue, async (doc) => {
          await agree(oracle, doc);
        }),
        { numRuns: RUNS },
      );
    });
  }, 60_000);

  it(`accepts exactly what Python accepts, on ${RUNS} documents with a random edit`, async () => {
    let accepted = 0;
    await withOracle(async (oracle) => {
      await fc.assert(
        fc.asyncProperty(mutatedDocument, async (doc) => {
          if ((await agree(oracle, doc)).ok !== undefined) accepted++;
        }),
        { numRuns: RUNS },
      );
    });
    // Both outcomes must actually be exercised for the comparison to mean anything.
    expect(accepted).toBeGreaterThan(RUNS * 0.05);
    expect(accepted).toBeLessThan(RUNS * 0.95);
  }, 60_000);

  it('on hand-picked documents near each rule boundary', async () => {
    const docs = [
      '',
      ' ',
      '\ufeff1',
      '\ufeff',
      '1\ufeff',
      '-',
      '-0',
      '-0.0',
      '01',
      '-01',
      '1.',
      '.1',
      '1e',
      '1e+',
      '1E-0',
      '0e0',
      '1_000',
      '0x1',
      'NaN',
      '-NaN',
      'nan',
      'Infinity',
      '-Infinity',
      '+Infinity',
      'Infinityx',
      '[1,]',
      '{"a":1,}',
      '{,}',
      '[,]',
      '{"a" : 1 }',
      '{"a"}',
      '{1:2}',
      "{'a':1}",
      '"\\u"',
      '"\\u12"',
      '"\\uD83D"',
      '"\\uD83D\\u"',
      '"\\ud83d\\uDe00"',
      '"\\ud83d\\ud83d\\ude00"',
      '"\x7f"',
      '"\t"',
      '"\\\t"',
      '"\\a"',
      '"\\\'"',
      'true false',
      'nul',
      'null ',
      ' \r\n\t null',
      '\u00a0null',
      '\u2028null',
      '[1]\u0000',
      `${'9'.repeat(4300)}`,
      `${'9'.repeat(4301)}`,
      `-${'9'.repeat(4301)}`,
      `${'9'.repeat(4301)}.0`,
      `${'9'.repeat(4301)}e0`,
      `${'['.repeat(900)}${']'.repeat(900)}`,
      '1e309',
      '-1e-400',
    ];
    await withOracle(async (oracle) => {
      for (const doc of docs) await agree(oracle, doc);
    });
  }, 30_000);

  it('formats 20,000 random doubles exactly as float.__repr__', async () => {
    // Random bit patterns cover every exponent, subnormals included, evenly.
    const view = new DataView(new ArrayBuffer(8));
    let state = 0x9e3779b97f4a7c15n;
    const lexemes: string[] = [];
    while (lexemes.length < 20_000) {
      state ^= (state << 13n) & 0xffffffffffffffffn;
      state ^= state >> 7n;
      state ^= (state << 17n) & 0xffffffffffffffffn;
      view.setBigUint64(0, state);
      const x = view.getFloat64(0);
      if (!Number.isFinite(x)) continue;
      // Alternate the shortest spelling with a 21-digit one that must be rounded.
      const s = lexemes.length % 2 === 0 ? String(x) : x.toExponential(20);
      lexemes.push(/[.eE]/.test(s) ? s : `${s}.0`);
    }
    await withOracle(async (oracle) => {
      await agree(oracle, `[${lexemes.join(',')}]`);
    });
  }, 30_000);
});
