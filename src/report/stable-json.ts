// The scorecard's JSON lives below the layers (src/util/stable-json.ts): a shard's merge compares with it too.
export { stableLine, stableStringify } from '../util/stable-json.js';
