/** The signatures layer's failure-signature freeze (`flake_signatures.json`); its reader and model live in src/freeze. */

import type { PatchgateConfig } from '../config/schema.js';
import {
  formatSignatureFreeze,
  readSignatureFreeze,
  type SignatureFreeze,
  signatureFreezeSchema,
} from '../freeze/signature-freeze.js';
import type { FileFormat } from './format.js';

export const signatureFreezeFormat = {
  kind: 'file',
  roles: ['signatures.freeze'],
  layer: 'signatures',
  describe: 'failure-signature freeze (flake_signatures.json)',
  files: (config: PatchgateConfig) =>
    config.signatures ? [{ path: config.signatures.freeze, role: 'signatures.freeze' }] : [],
  schema: { file: 'signature-freeze.schema.json', schema: signatureFreezeSchema },
  empty: {
    text: (schemaRef) =>
      formatSignatureFreeze({ ...(schemaRef !== undefined ? { $schema: schemaRef } : {}), rows: [] }),
    what: 'an empty signature freeze: every failure and skip rejects until a human freezes it',
  },
  missing: {
    create: () => 'write `{"signatures": []}` (or freeze a failure with `patchgate signatures add`)',
  },
  read: (root, { path }, env) => readSignatureFreeze(root, path, env.revision, env.read),
} satisfies FileFormat<SignatureFreeze>;
