import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configSchema } from '../../../src/config/schema.js';

const shipped = JSON.parse(
  readFileSync(new URL('../../../schema/patchgate.config.schema.json', import.meta.url), 'utf8'),
);

describe('the shipped JSON Schema', () => {
  it('is generated from the same zod schema the gate validates with', () => {
    const fresh = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' });
    const { $id: _id, title: _title, ...rest } = shipped;
    expect(rest).toEqual(JSON.parse(JSON.stringify(fresh)));
  });

  it('forbids unknown keys at every level, as the loader does', () => {
    expect(shipped.additionalProperties).toBe(false);
    expect(shipped.properties.fixtures.additionalProperties).toBe(false);
    expect(shipped.properties.fixtures.properties.canonical.items.additionalProperties).toBe(false);
  });
});
