/**
 * A subset of a pytest run, handed to the gate's `patchgate_select` plugin
 * rather than put on pytest's command line (see `selectsInProcess` in
 * presets.ts): pytest then collects what the project's configuration says,
 * and the plugin keeps only the asked-for node ids and files of that.
 *
 * The selection is a file the run may only read, outside the folder it
 * writes; the plugin reads it when the gate's loader imports it, before any
 * code of the checkout runs.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { shippedPythonFile } from '../../util/package-root.js';
import type { TestSelection } from './presets.js';

export const SELECT_MODULE = 'patchgate_select';
export const SELECT_ENV = 'PATCHGATE_SELECT';
export const PYTEST_SELECT_PLUGIN_PATH: string = shippedPythonFile(`${SELECT_MODULE}.py`);

/** Writes the selection of the run labelled `label` under `dir`; returns the file, to be mounted read-only. */
export async function writeSelection(dir: string, label: string, selection: TestSelection): Promise<string> {
  const folder = path.resolve(dir, `${label}.select`);
  await mkdir(folder, { recursive: true });
  const file = path.join(folder, 'selection.json');
  await writeFile(
    file,
    `${JSON.stringify({ nodeids: selection.nodeids, files: selection.files, ...(selection.stop ? { stop: true } : {}) })}\n`,
  );
  return file;
}
