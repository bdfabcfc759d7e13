/** The hits layer's cause-class flake ledger (`flake_ledger.json`); its reader and model live in src/freeze. */

import type { PatchgateConfig } from '../config/schema.js';
import {
  type FlakeLedger,
  flakeLedgerSchema,
  formatFlakeLedger,
  readFlakeLedger,
} from '../freeze/flake-ledger.js';
import type { FileFormat } from './format.js';

export const flakeLedgerFormat = {
  kind: 'file',
  roles: ['hits.ledger'],
  layer: 'hits',
  describe: 'cause-class flake ledger (flake_ledger.json)',
  files: (config: PatchgateConfig) =>
    config.hits ? [{ path: config.hits.ledger, role: 'hits.ledger' }] : [],
  schema: { file: 'flake-ledger.schema.json', schema: flakeLedgerSchema },
  empty: {
    text: (schemaRef) =>
      formatFlakeLedger({
        ...(schemaRef !== undefined ? { $schema: schemaRef } : {}),
        version: 1,
        rules: [],
      }),
    what: 'an empty cause-class flake ledger, for the hits layer',
  },
  missing: {
    create: () => 'write `{"version": 1, "rules": []}` (or add a row with `patchgate ledger add`)',
  },
  read: (root, { path }, env) => readFlakeLedger(root, path, env.revision, env.read),
} satisfies FileFormat<FlakeLedger>;
