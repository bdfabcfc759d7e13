/** The stability layer's freeze (`stability_freeze.json`); its reader and model live in src/freeze. */

import type { PatchgateConfig } from '../config/schema.js';
import type { Freeze } from '../freeze/model.js';
import { readStabilityFreeze, stabilityFreezeSchema } from '../freeze/stability-freeze.js';
import type { FileFormat } from './format.js';

export const stabilityFreezeFormat = {
  kind: 'file',
  roles: ['stability.freeze'],
  layer: 'stability',
  describe: 'stability freeze (stability_freeze.json)',
  files: (config: PatchgateConfig) =>
    config.stability ? [{ path: config.stability.freeze, role: 'stability.freeze' }] : [],
  schema: { file: 'stability-freeze.schema.json', schema: stabilityFreezeSchema },
  empty: {
    text: (schemaRef) =>
      `${JSON.stringify({ ...(schemaRef !== undefined ? { $schema: schemaRef } : {}), freezes: [] }, null, 2)}\n`,
    what: 'an empty stability freeze: every flaky test rejects until a human freezes it',
  },
  // The gate reads a missing freeze as no freezes, so validate says what that costs instead of failing.
  missing: {
    readAsEmpty:
      'the gate reads that as no freezes, so every pre-existing flaky test rejects. Write {"freezes": []} to make the file a reviewed contract.',
  },
  read: (root, { path }, env) => readStabilityFreeze(root, path, env.revision, env.read),
} satisfies FileFormat<Freeze[]>;
