import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { type GitDir, tempDir } from './gitdir.js';

/**
 * A real pytest run of the repository's `tests` as they are (PYTHONPATH=src),
 * and the JUnit report it wrote. A failing suite is a result (exit 1), not an
 * error; anything else pytest says is.
 */
export function pytestReport(repo: GitDir, junit = path.join(tempDir('pg-junit-'), 'report.xml')): string {
  try {
    execFileSync(
      '/usr/bin/python3',
      ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', `--junitxml=${junit}`, 'tests'],
      {
        cwd: repo.dir,
        env: { ...process.env, PYTHONPATH: 'src' },
        stdio: 'ignore',
      },
    );
  } catch (err) {
    if ((err as { status?: number }).status !== 1) throw err;
  }
  return junit;
}
