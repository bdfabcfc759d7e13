/**
 * Which layers a config turns on, in the gate's order. `validate` and
 * `init` say which layers judge a patch and read those layers' contract
 * files; src/config sits below the layers and cannot load them, so the rule
 * is written here, and every layer's `enabled` is its switch (`switchOf`).
 */
import type { PatchgateConfig } from './schema.js';

export interface LayerSwitch {
  name: string;
  on(config: PatchgateConfig): boolean;
}

const testsOn = (c: PatchgateConfig) => c.tests !== undefined;

export const LAYER_SWITCHES: readonly LayerSwitch[] = [
  { name: 'contracts', on: () => true },
  { name: 'fixtures', on: (c) => c.fixtures.enabled },
  { name: 'hits', on: (c) => c.hits?.enabled === true },
  { name: 'seeds', on: (c) => c.seeds?.enabled === true },
  { name: 'signatures', on: (c) => c.signatures?.enabled === true && testsOn(c) },
  { name: 'regression', on: testsOn },
  {
    name: 'test-edits',
    on: (c) => testsOn(c) || c.seeds?.enabled === true || c.hits?.enabled === true,
  },
  { name: 'stability', on: (c) => c.stability?.enabled === true && testsOn(c) },
  { name: 'mutation', on: (c) => c.mutation?.enabled === true && testsOn(c) },
  { name: 'claims', on: (c) => c.claims?.enabled === true },
];

/**
 * Whether `config` turns the layer `name` on: each layer's own `enabled`, so
 * the rule is written once.
 */
export function switchOf(name: string): (config: PatchgateConfig) => boolean {
  const found = LAYER_SWITCHES.find((l) => l.name === name);
  if (!found) throw new TypeError(`no layer switch named ${name}`);
  return found.on;
}

/** The names of the layers `config` turns on, in the gate's order. */
export function layersOn(config: PatchgateConfig): string[] {
  return LAYER_SWITCHES.filter((l) => l.on(config)).map((l) => l.name);
}
