import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { literalArgs, scanPython } from '../../../src/config/python-scan.js';
import { recognize } from '../../../src/config/runner-command.js';
import {
  parseMakefile,
  pytestRequirementLine,
  readNoxfile,
  readRunnerHints,
  readTox,
} from '../../../src/config/runner-sources.js';
import { shellCommands } from '../../../src/util/shell-commands.js';
import { tempDir } from '../../helpers/gitdir.js';

function folder(files: Record<string, string>): string {
  const dir = tempDir('pg-runners-');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const rec = (line: string) => recognize(shellCommands(line)[0] ?? []);

describe('recognize: what a command line runs', () => {
  it.each([
    ['pytest -q tests', 'pytest'],
    ['py.test', 'pytest'],
    ['python -m pytest tests/ -x', 'pytest'],
    ['python3.12 -X dev -W error -m pytest', 'pytest'],
    ['coverage run --source=pkg -m pytest', 'pytest'],
    ['uv run --frozen pytest', 'pytest'],
    ['poetry run python -m pytest', 'pytest'],
    ['.venv/bin/pytest', 'pytest'],
    ['{envpython} -m pytest {posargs}', 'pytest'],
    ['$PYTHON -m pytest', 'pytest'],
    ['CI=1 npx --yes vitest run', 'vitest'],
    ['pnpm exec jest --ci', 'jest'],
    ['node --import tsx --test test/', 'node-test'],
    ['go test ./...', 'go'],
    ['gotestsum -- ./...', 'go'],
    ['cargo nextest run', 'cargo-nextest'],
    ['cargo test --all', 'cargo-test'],
    ['./mvnw -B verify', 'maven'],
    ['python -m unittest discover', 'unittest'],
  ])('%s runs %s', (line, runner) => {
    expect(rec(line)).toMatchObject({ kind: 'runner', runner });
  });

  it.each([
    ['npm test', { kind: 'script', name: 'test' }],
    ['npm run test:unit', { kind: 'script', name: 'test:unit' }],
    ['pnpm test', { kind: 'script', name: 'test' }],
    ['yarn run spec', { kind: 'script', name: 'spec' }],
    ['make test', { kind: 'make', targets: ['test'] }],
    ['make', { kind: 'make', targets: [] }],
    ['tox -e py312,lint', { kind: 'tox', envs: ['py312', 'lint'] }],
    ['python -m tox', { kind: 'tox', envs: [] }],
    ['nox -s tests', { kind: 'nox', sessions: ['tests'] }],
  ])('%s stands for %o', (line, what) => {
    expect(rec(line)).toEqual(what);
  });

  it.each([
    'pip install pytest',
    'python -m pip install -e .[test]',
    'python setup.py test',
    'npm ci',
    'vitest bench',
    'node script.js',
    'make -C docs test',
    'bun test',
    'echo pytest',
  ])('%s runs no runner', (line) => {
    expect(rec(line)).toBeUndefined();
  });

  it('keeps the runner command from its own name on, the wrappers looked through', () => {
    expect(rec('uv run python -m pytest tests -m "not slow"')).toEqual({
      kind: 'runner',
      runner: 'pytest',
      words: ['pytest', 'tests', '-m', 'not slow'],
    });
  });
});

describe('scanPython', () => {
  it('blanks comments and strings, keeps offsets, and reads prefixed and triple-quoted literals', () => {
    const text = 'x = r"a\\b"  # session.run("pytest")\ny = """doc\nsession.run("pytest")"""\nz = b\'\\n\'\n';
    const scan = scanPython(text);
    expect(scan.code).toHaveLength(text.length);
    expect(scan.code).not.toContain('session');
    expect(scan.code).not.toContain('pytest');
    expect(scan.strings.map((s) => s.value)).toEqual(['a\\b', 'doc\nsession.run("pytest")', '\n']);
  });

  it('reads a call’s leading literal arguments, joining adjacent literals', () => {
    const text = 'session.run("py" "test", \'-q\', *session.posargs, "-x")';
    const scan = scanPython(text);
    expect(literalArgs(scan, text.indexOf('('))).toEqual(['pytest', '-q']);
  });
});

describe('readNoxfile', () => {
  it('finds session.run calls and their session, never in a comment or a docstring', () => {
    const text = [
      'import nox',
      '',
      '@nox.session',
      'def tests(session):',
      '    """Runs session.run("mocha") in the docs only."""',
      '    # session.run("jest")',
      '    session.install("pytest", "-r", "requirements.txt")',
      '    session.run("pytest", "tests", *session.posargs)',
      '',
    ].join('\n');
    const nox = readNoxfile(text);
    expect(nox.runs).toEqual([
      {
        session: 'tests',
        line: 8,
        args: ['pytest', 'tests'],
        text: 'session.run("pytest", "tests", *session.posargs)',
      },
    ]);
    expect(nox.installs.map((c) => c.args[0])).toEqual(['pytest']);
  });
});

describe('readTox', () => {
  it('reads each env’s commands with their lines, an env without its own inheriting [testenv]', () => {
    const tox = readTox(
      [
        '[tox]',
        'env_list = py312, lint',
        '',
        '[testenv]',
        'deps = -r test-requirements.txt',
        'commands =',
        '    - python -m pip list',
        '    pytest {posargs:tests}',
        '',
        '[testenv:py312]',
        '',
        '[testenv:lint]',
        'commands = flake8 src',
        '',
      ].join('\n'),
    );
    expect(tox.envs).toEqual([
      {
        name: '',
        commands: [
          { line: 7, text: 'python -m pip list' },
          { line: 8, text: 'pytest tests' },
        ],
      },
      {
        name: 'py312',
        commands: [
          { line: 7, text: 'python -m pip list' },
          { line: 8, text: 'pytest tests' },
        ],
      },
      { name: 'lint', commands: [{ line: 13, text: 'flake8 src' }] },
    ]);
  });
});

describe('parseMakefile', () => {
  it('expands variables in recipe lines, strips recipe prefixes, and keeps prerequisites', () => {
    const mf = parseMakefile(
      'Makefile',
      [
        'PYTHON ?= python3',
        'PYTEST = $(PYTHON) -m pytest',
        '.PHONY: test unit',
        '',
        'all: build',
        '',
        'test: unit  ## run the tests',
        '',
        'unit:',
        '\t@echo running',
        '\t-$(PYTEST) -q \\',
        '\t  tests',
        '',
      ].join('\n'),
    );
    expect(mf.defaultGoal).toBe('all');
    expect(mf.targets.get('test')).toEqual({ line: 7, prereqs: ['unit'], recipe: [] });
    expect(mf.targets.get('unit')?.recipe).toEqual([
      { line: 10, text: 'echo running' },
      { line: 11, text: 'python3 -m pytest -q tests' },
    ]);
  });
});

describe('pytestRequirementLine', () => {
  it('finds pytest itself, with a version, extras or a marker, never a plugin or a comment', () => {
    expect(
      pytestRequirementLine('# pytest\npytest-cov\nflake8\npytest[testing]>=8 ; python_version>"3"\n'),
    ).toBe(4);
    expect(pytestRequirementLine('pytest-xdist==3\n')).toBeUndefined();
    expect(pytestRequirementLine('PyTest  # the runner\n')).toBe(1);
  });
});

describe('readRunnerHints', () => {
  it('reads a GitHub workflow test step, line by line, through npm test to the script', async () => {
    const hints = await readRunnerHints(
      folder({
        'package.json': '{\n  "scripts": {\n    "test": "vitest run"\n  }\n}\n',
        '.github/workflows/ci.yml': [
          'on: push',
          'jobs:',
          '  test:',
          '    runs-on: ubuntu-latest',
          '    steps:',
          '      - uses: actions/checkout@v4',
          '      - run: npm ci',
          '      - name: Unit tests',
          '        run: |',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
          '          echo "${{ matrix.node }}"',
          '          npm test',
          '',
        ].join('\n'),
      }),
    );
    expect(hints.ci).toEqual([
      {
        runner: 'vitest',
        words: ['vitest', 'run'],
        label: 'Unit tests',
        chain: [
          { file: '.github/workflows/ci.yml', line: 11, command: 'npm test' },
          { file: 'package.json', line: 3, command: 'vitest run' },
        ],
      },
    ]);
    expect(hints.notes).toEqual([]);
  });

  it('puts steps named like a test step first, and follows make and tox to the line that runs the runner', async () => {
    const hints = await readRunnerHints(
      folder({
        '.github/workflows/a.yml': 'jobs:\n  j:\n    steps:\n      - run: make check\n',
        '.github/workflows/b.yml': 'jobs:\n  j:\n    steps:\n      - name: Test\n        run: tox -e py\n',
        Makefile: 'check:\n\tgo test ./...\n',
        'tox.ini': '[testenv]\ncommands = pytest\n',
      }),
    );
    expect(hints.ci.map((u) => [u.runner, u.chain.map((s) => `${s.file}:${s.line}`)])).toEqual([
      ['pytest', ['.github/workflows/b.yml:5', 'tox.ini:2']],
      ['go', ['.github/workflows/a.yml:4', 'Makefile:2']],
    ]);
  });

  it('reads .gitlab-ci.yml scripts, tox, nox and Makefile test targets as the task files’ commands', async () => {
    const hints = await readRunnerHints(
      folder({
        '.gitlab-ci.yml':
          'stages: [test]\nunit:\n  stage: test\n  script:\n    - pip install .\n    - pytest -q\n',
        'tox.ini': '[testenv]\ncommands =\n    python -m pytest tests\n',
        'noxfile.py': 'import nox\n@nox.session\ndef t(session):\n    session.run("mocha")\n',
        Makefile: 'build:\n\ttsc\ntest:\n\tnpx jest\n',
      }),
    );
    expect(hints.ci.map((u) => `${u.runner} ${u.chain[0]?.file}:${u.chain[0]?.line} ${u.label}`)).toEqual([
      'pytest .gitlab-ci.yml:6 unit',
    ]);
    expect(
      hints.commands.map((u) => `${u.runner} ${u.chain.map((s) => `${s.file}:${s.line}`).join(' ')}`),
    ).toEqual(['pytest tox.ini:3', 'mocha noxfile.py:4', 'jest Makefile:4']);
  });

  it('says which file it could not read, with the line, instead of reading nothing silently', async () => {
    const hints = await readRunnerHints(
      folder({
        '.github/workflows/ci.yml': 'jobs:\n  t:\n    steps: [\n',
        'tox.ini': '[testenv]\n  orphan continuation\n',
      }),
    );
    expect(hints.ci).toEqual([]);
    expect(hints.notes).toEqual([
      expect.stringMatching(/^\.github\/workflows\/ci\.yml could not be read as YAML \(line \d+: /),
      expect.stringMatching(/^tox\.ini could not be read \(line 2: unexpected value continuation\)/),
    ]);
  });

  it('skips a step that runs in another folder, and says so', async () => {
    const hints = await readRunnerHints(
      folder({
        '.github/workflows/ci.yml':
          'jobs:\n  t:\n    steps:\n      - run: pytest\n        working-directory: backend\n',
      }),
    );
    expect(hints.ci).toEqual([]);
    expect(hints.notes[0]).toContain('.github/workflows/ci.yml:4: the step runs in backend');
  });
});
