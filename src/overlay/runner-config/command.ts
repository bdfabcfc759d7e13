/**
 * The files a test command names by flag: Node's `--import` / `--require` /
 * `--loader` and the files after `--test`, mocha's `--require` / `--file` /
 * specs, the `--config` of vitest, jest and mocha, and what `npm test` runs
 * (the base's `scripts.test`), read with shell-quote as a shell splits them.
 * `NODE_OPTIONS` set in the command or in `tests.env` counts too.
 */

import { NODE_MODULE_FLAGS, NODE_PATH_FLAGS, NODE_VALUE_FLAGS } from '../../config/node-flags.js';
import { shellCommands } from '../../util/shell-commands.js';
import type { Collector } from './collector.js';
import type { JsRunnerConfigs } from './js-runners.js';
import type { JsValue } from './js-value.js';
import { isPathLike, repoGlobOf, repoPathOf } from './paths.js';

export interface CommandSource {
  /** The base file the command is written in, and its line (1 when unknown). */
  file: string;
  line: number;
  /** How the command is named there (`tests.command`, `scripts.test`). */
  key: string;
}

/** Programs that run the rest of the line as a command. */
const WRAPPERS = new Set(['c8', 'nyc', 'cross-env', 'dotenv', 'env', 'time', 'nice']);
const PACKAGE_RUNNERS = new Set(['npx', 'pnpx', 'bunx']);
const SCRIPT_RUNNERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);

const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);

export class CommandReader {
  private readonly seenScripts = new Set<string>();
  /** pytest argument lists found in the commands (a generic command may run pytest). */
  readonly pytestArgs: string[][] = [];

  constructor(
    private readonly out: Collector,
    private readonly js: JsRunnerConfigs,
    private readonly scripts: (name: string) => Promise<{ text: string; line: number } | undefined>,
  ) {}

  private str(value: string, src: CommandSource): JsValue & { kind: 'string' } {
    return { kind: 'string', value, line: src.line };
  }

  private module(value: string, src: CommandSource, key: string, bare: boolean): void {
    this.out.modules(this.str(value, src), src.file, `${src.key} ${key}`, '', bare);
  }

  private glob(value: string, src: CommandSource, key: string): void {
    const g = repoGlobOf(value, '');
    if (g === undefined) return;
    const p = repoPathOf(value, false, '');
    this.out.name(
      p !== undefined && this.out.files.isDir(p) ? `${g.replace(/\/$/, '')}/**` : g,
      src.file,
      src.line,
      `${src.key} ${key}`,
    );
  }

  /** NODE_OPTIONS: Node's flags in a variable. */
  nodeOptions(value: string, src: CommandSource): void {
    for (const words of shellCommands(value)) this.node(['node', ...words], src, true);
  }

  async command(argv: readonly string[], src: CommandSource): Promise<void> {
    let words = [...argv];
    // Leading VAR=value assignments; NODE_OPTIONS among them is read as Node's flags.
    while (words[0] !== undefined && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) {
      const [name, ...rest] = (words[0] as string).split('=');
      if (name === 'NODE_OPTIONS') this.nodeOptions(rest.join('='), src);
      words = words.slice(1);
    }
    const program = words[0] === undefined ? undefined : base(words[0]);
    if (program === undefined) return;
    const rest = words.slice(1);
    if (WRAPPERS.has(program)) {
      // The wrapped command starts at the first word that is not a flag or an assignment.
      const i = rest.findIndex((w) => !w.startsWith('-') && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
      if (i >= 0) await this.command(rest.slice(i), src);
      return;
    }
    if (PACKAGE_RUNNERS.has(program)) {
      const i = rest.findIndex((w) => !w.startsWith('-'));
      if (i >= 0) await this.command(rest.slice(i), src);
      return;
    }
    if (SCRIPT_RUNNERS.has(program)) return this.script(rest);
    if (program === 'node' || program === 'tsx' || program === 'bun') return this.node(words, src, false);
    if (program === 'mocha' || program === '_mocha') return this.mocha(rest, src);
    if (program === 'vitest' || program === 'jest') return this.runnerConfig(program, rest, src);
    if (/^python[0-9.]*$/.test(program) && rest[0] === '-m' && rest[1] === 'pytest')
      this.pytestArgs.push(rest.slice(2));
    else if (program === 'pytest' || program === 'py.test') this.pytestArgs.push(rest);
  }

  /** `npm test`, `npm run test`, `yarn test`: the base's script of that name. */
  private async script(rest: string[]): Promise<void> {
    const words = rest.filter((w) => !w.startsWith('-'));
    let name = words[0];
    if (name === 'run' || name === 'run-script') name = words[1];
    if (name === 't' || name === 'tst') name = 'test';
    if (name === undefined || this.seenScripts.has(name)) return;
    this.seenScripts.add(name);
    for (const hook of [`pre${name}`, name, `post${name}`]) {
      const script = await this.scripts(hook);
      if (!script) continue;
      for (const cmd of shellCommands(script.text))
        await this.command(cmd, { file: 'package.json', line: script.line, key: `scripts.${hook}` });
    }
  }

  private node(words: string[], src: CommandSource, optionsOnly: boolean): void {
    let testMode = false;
    for (let i = 1; i < words.length; i++) {
      const w = words[i] as string;
      const eq = w.indexOf('=');
      const flag = w.startsWith('-') && eq > 0 ? w.slice(0, eq) : w;
      const inline = w.startsWith('-') && eq > 0 ? w.slice(eq + 1) : undefined;
      if (NODE_VALUE_FLAGS.has(flag)) {
        const value = inline ?? words[++i];
        if (value === undefined) break;
        if (NODE_MODULE_FLAGS.has(flag))
          this.module(value, src, flag, flag === '--env-file' || flag === '--require' || flag === '-r');
        else if (NODE_PATH_FLAGS.has(flag) && isPathLike(value, false)) this.module(value, src, flag, false);
        continue;
      }
      if (w === '--test') {
        testMode = true;
        continue;
      }
      if (w.startsWith('-') || optionsOnly) continue;
      if (testMode) this.glob(w, src, '--test');
      else {
        // The script node runs is the test runner itself; what follows are its own arguments.
        this.module(w, src, 'script', true);
        return;
      }
    }
  }

  private async mocha(rest: string[], src: CommandSource): Promise<void> {
    const valueFlags = new Set([
      '--require',
      '-r',
      '--file',
      '--config',
      '--reporter',
      '-R',
      '--ui',
      '-u',
      '--ignore',
      '--exclude',
      '--extension',
      '--grep',
      '-g',
      '--fgrep',
      '-f',
      '--timeout',
      '-t',
      '--slow',
      '-s',
      '--reporter-option',
      '--reporter-options',
      '-O',
      '--node-option',
      '-n',
      '--jobs',
      '-j',
      '--retries',
      '--package',
      '--spec',
    ]);
    for (let i = 0; i < rest.length; i++) {
      const w = rest[i] as string;
      const eq = w.indexOf('=');
      const flag = w.startsWith('-') && eq > 0 ? w.slice(0, eq) : w;
      const inline = w.startsWith('-') && eq > 0 ? w.slice(eq + 1) : undefined;
      if (valueFlags.has(flag)) {
        const value = inline ?? rest[++i];
        if (value === undefined) break;
        if (flag === '--require' || flag === '-r' || flag === '--file') this.module(value, src, flag, true);
        else if (
          (flag === '--reporter' || flag === '-R' || flag === '--ui' || flag === '-u') &&
          isPathLike(value, false)
        )
          this.module(value, src, flag, false);
        else if (flag === '--config') {
          const p = repoPathOf(value, false, '');
          if (p) {
            this.out.module(p, src.file, src.line, `${src.key} --config`);
            await this.js.mocha(p);
          }
        } else if (flag === '--spec') this.glob(value, src, 'spec');
        else if (flag === '--node-option' || flag === '-n') {
          const m = /^(?:import|require|r|loader|experimental-loader)=(.+)$/.exec(value);
          if (m?.[1]) this.module(m[1], src, flag, false);
        }
        continue;
      }
      if (!w.startsWith('-')) this.glob(w, src, 'spec');
    }
  }

  private async runnerConfig(program: 'vitest' | 'jest', rest: string[], src: CommandSource): Promise<void> {
    for (let i = 0; i < rest.length; i++) {
      const w = rest[i] as string;
      const m = /^(--config|-c)(?:=(.*))?$/.exec(w);
      if (!m) continue;
      const value = m[2] ?? rest[++i];
      if (value === undefined || value.trim().startsWith('{')) continue;
      const p = repoPathOf(value, false, '');
      if (!p) continue;
      this.out.module(p, src.file, src.line, `${src.key} --config`);
      if (program === 'vitest') await this.js.vitest(p, '');
      else await this.js.jest(p);
    }
  }
}
