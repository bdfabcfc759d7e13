import { spawnSync } from 'node:child_process';
import { pythonEnv } from './shared.js';

/**
 * pytest's and iniconfig's own readers as oracles: each text is written to a
 * real file (bytes as given) and read by the very function pytest calls for
 * it, so a test compares the overlay's split with what pytest would run.
 * One python3 per batch.
 */
const ORACLE = `
import json, os, sys, tempfile
from pathlib import Path
import iniconfig
from _pytest.config.findpaths import load_config_dict_from_file

def run(item):
    d = tempfile.mkdtemp()
    p = Path(d) / item["name"]
    p.write_bytes(item["text"].encode("utf-8", "surrogatepass"))
    try:
        if item["mode"] == "iniconfig":
            cfg = iniconfig.IniConfig(str(p))
            return {"sections": {s: dict(cfg.sections[s]) for s in cfg.sections}}
        cfg = load_config_dict_from_file(p)
        return {"config": None if cfg is None else {k: v.value for k, v in cfg.items()}}
    except BaseException as e:
        return {"error": type(e).__name__ + ": " + str(e).splitlines()[0] if str(e) else type(e).__name__}

items = json.load(sys.stdin)
json.dump([run(i) for i in items], sys.stdout, default=str)
`;

export type PytestReading = { config: Record<string, unknown> | null } | { error: string };
export type IniconfigReading = { sections: Record<string, Record<string, string>> } | { error: string };

function batch(items: { name: string; text: string; mode: 'pytest' | 'iniconfig' }[]): unknown[] {
  const r = spawnSync('python3', ['-c', ORACLE], {
    input: JSON.stringify(items),
    env: pythonEnv(),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`the pytest oracle failed (exit ${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as unknown[];
}

/** What pytest's `load_config_dict_from_file` reads from a file of this name and text. */
export function pytestReads(files: { name: string; text: string }[]): PytestReading[] {
  return batch(files.map((f) => ({ ...f, mode: 'pytest' }))) as PytestReading[];
}

/** Every section iniconfig (pytest's INI reader) sees in each text, or its error. */
export function iniconfigReads(texts: string[]): IniconfigReading[] {
  return batch(texts.map((text) => ({ name: 'x.ini', text, mode: 'iniconfig' }))) as IniconfigReading[];
}
