/** The hits layer's cause-class flake ledger (`flake_ledger.json`); its reader and model live in src/freeze. */
import {
  type FlakeLedger,
  flakeLedgerSchema,
  formatFlakeLedger,
  readFlakeLedger,
} from '../freeze/flake-ledger.js';
import type { FileFormat, WithSchema } from './format.js';

export const flakeLedgerFormat: WithSchema<FileFormat<FlakeLedger>> = {
  kind: 'file',
  roles: ['hits.ledger'],
  layer: 'hits',
  describe: 'cause-class flake ledger (flake_ledger.json)',
  files: (config) => (config.hits ? [{ path: config.hits.ledger, role: 'hits.ledger' }] : []),
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
};
