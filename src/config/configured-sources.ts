import { stat } from 'node:fs/promises';
import path from 'node:path';
import { ContractFileError, type Problem } from '../errors.js';
import { findModules } from '../util/find-modules.js';

/**
 * A glob or module path the base config names, which must find something in
 * the base revision. A layer whose globs match nothing checks nothing, and a
 * gate that checked nothing must not say yes: that is the config's mistake
 * (exit 2), never a pass and never the patch's fault.
 */
export interface ConfiguredSource {
  /** Dotted config key, e.g. `hits.properties[0]`. */
  key: string;
  kind: 'glob' | 'file';
  value: string;
}

async function isFile(abs: string): Promise<boolean> {
  try {
    return (await stat(abs)).isFile();
  } catch {
    return false;
  }
}

/** One problem per source that finds nothing in `root` (the base checkout). */
export async function missingSources(
  root: string,
  configFile: string,
  sources: readonly ConfiguredSource[],
): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const s of sources) {
    if (s.kind === 'glob') {
      if ((await findModules(root, [s.value])).length === 0) {
        problems.push({
          file: configFile,
          path: s.key,
          message: `the glob '${s.value}' matches no file in the base revision, so this check would check nothing; fix the glob or remove it`,
        });
      }
    } else if (!(await isFile(path.join(root, s.value)))) {
      problems.push({
        file: configFile,
        path: s.key,
        message: `'${s.value}' is not a file in the base revision, so this check would check nothing; fix the path or remove the entry`,
      });
    }
  }
  return problems;
}

/** Throws CONFIG_INVALID listing every source that finds nothing. */
export async function assertSourcesFound(
  root: string,
  configFile: string,
  sources: readonly ConfiguredSource[],
): Promise<void> {
  const problems = await missingSources(root, configFile, sources);
  if (problems.length > 0) throw new ContractFileError('CONFIG_INVALID', problems);
}

/** A layer that is on but whose base configuration yields nothing to run. */
export function nothingConfigured(configFile: string, key: string, what: string): ContractFileError {
  return new ContractFileError('CONFIG_INVALID', [
    {
      file: configFile,
      path: key,
      message: `${what}; an enabled check that checks nothing is an error, not a pass. Configure what it should check, or set ${key.split('.')[0]}.enabled to false`,
    },
  ]);
}
