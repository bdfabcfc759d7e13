import { describe, expect, it } from 'vitest';
import { LAYER_SWITCHES, layersOn } from '../../../src/config/layers-on.js';
import { configSchema, type PatchgateConfig } from '../../../src/config/schema.js';
import { LAYERS } from '../../../src/pipeline.js';

/** Each section absent, present, or present and switched off. */
const SECTIONS: Record<string, unknown[]> = {
  fixtures: [{}, { enabled: false }],
  hits: [undefined, {}, { enabled: false }],
  seeds: [undefined, {}, { enabled: false }],
  tests: [undefined, { preset: 'pytest' }],
  signatures: [undefined, {}, { enabled: false }],
  stability: [undefined, {}, { enabled: false }],
  claims: [undefined, {}, { enabled: false }],
};

/** Every config the sections combine into that the schema accepts. */
function everyConfig(): PatchgateConfig[] {
  let inputs: Record<string, unknown>[] = [{}];
  for (const [key, values] of Object.entries(SECTIONS))
    inputs = inputs.flatMap((input) => values.map((v) => (v === undefined ? input : { ...input, [key]: v })));
  return inputs.flatMap((input) => {
    const parsed = configSchema.safeParse(input);
    return parsed.success ? [parsed.data] : [];
  });
}

describe('which layers a config turns on', () => {
  it('names the layers in the gate’s order', () => {
    expect(LAYER_SWITCHES.map((s) => s.name)).toEqual(LAYERS.map((l) => l.name));
  });

  it('agrees with every layer’s own enabled, for every combination of sections', () => {
    const configs = everyConfig();
    expect(configs.length).toBeGreaterThan(200);
    const disagreements = configs.flatMap((config) => {
      const gate = LAYERS.filter((l) => l.enabled(config)).map((l) => l.name);
      const said = layersOn(config);
      return JSON.stringify(gate) === JSON.stringify(said) ? [] : [{ gate, said }];
    });
    expect(disagreements).toEqual([]);
  });
});
