import { describe, expect, it } from 'vitest';
import { LAYER_SWITCHES, layersOn, switchOf } from '../../../src/config/layers-on.js';
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

  it('is each layer’s own enabled, so the gate and validate cannot disagree', () => {
    for (const layer of LAYERS) expect(layer.enabled).toBe(switchOf(layer.name));
    expect(() => switchOf('no-such-layer')).toThrow(/no layer switch named no-such-layer/);
  });

  it('turns the test layers on only with a test command, and test-edits with any property layer', () => {
    const on = (input: Record<string, unknown>) => layersOn(configSchema.parse(input));
    expect(on({})).toEqual(['contracts', 'fixtures']);
    expect(on({ fixtures: { enabled: false } })).toEqual(['contracts']);
    expect(on({ tests: { preset: 'pytest' }, signatures: {}, stability: {} })).toEqual([
      'contracts',
      'fixtures',
      'signatures',
      'regression',
      'test-edits',
      'stability',
    ]);
    expect(on({ seeds: {} })).toEqual(['contracts', 'fixtures', 'seeds', 'test-edits']);
    expect(on({ hits: { enabled: false }, claims: {} })).toEqual(['contracts', 'fixtures', 'claims']);
    // Every combination the schema accepts names only known layers, in the gate's order.
    const order = LAYERS.map((l) => l.name);
    for (const config of everyConfig()) {
      const said = layersOn(config);
      expect(said).toEqual(order.filter((n) => said.includes(n)));
    }
  });
});
