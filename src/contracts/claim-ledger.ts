/** The claims layer's freeze-window ledger (`freeze/ledger.json`); its reader and model live in src/freeze. */

import type { PatchgateConfig } from '../config/schema.js';
import {
  type ClaimLedger,
  claimLedgerSchema,
  EMPTY_CLAIM_LEDGER,
  formatClaimLedger,
  readClaimLedger,
} from '../freeze/claim-ledger.js';
import type { FileFormat } from './format.js';

export const claimLedgerFormat = {
  kind: 'file',
  roles: ['claims.ledger'],
  layer: 'claims',
  describe: 'freeze-window ledger (freeze/ledger.json)',
  files: (config: PatchgateConfig) =>
    config.claims ? [{ path: config.claims.ledger, role: 'claims.ledger' }] : [],
  schema: { file: 'claim-ledger.schema.json', schema: claimLedgerSchema },
  empty: {
    text(schemaRef) {
      const empty = JSON.parse(EMPTY_CLAIM_LEDGER) as { window_runs: number };
      return formatClaimLedger({
        ...(schemaRef !== undefined ? { $schema: schemaRef } : {}),
        windowRuns: empty.window_runs,
        entries: new Map(),
      });
    },
    what: 'an empty freeze-window ledger, for the claims layer',
  },
  missing: {
    create: () => `write ${EMPTY_CLAIM_LEDGER} with an entry per freeze id the claim matrix names`,
  },
  read: (root, { path }, env) => readClaimLedger(root, path, env.revision, env.read),
} satisfies FileFormat<ClaimLedger>;
