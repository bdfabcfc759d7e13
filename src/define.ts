/**
 * What property modules import as `patchgate` when the gate runs them: the
 * two define helpers and nothing else. Loading the whole library in every
 * sandboxed process would cost a third of a second per process, and head
 * code has no use for the gate's own machinery.
 */
export {
  type BrandedProperty,
  defineProperty,
  type PropertyDefinition,
} from './layers/hits/define-property.js';
export {
  type BrandedSeedProperty,
  defineSeedProperty,
  type SeedPropertyDefinition,
} from './layers/seeds/define-seed-property.js';
