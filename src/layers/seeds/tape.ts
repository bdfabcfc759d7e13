/**
 * The seed tape's reader moved to src/contracts/seed-tape.ts (one module per
 * contract format). pipeline.ts and src/steps still import it from here
 * while the lead reshapes them; this re-export goes once they import
 * src/contracts/seed-tape.ts.
 */
export { readTapeIfExists } from '../../contracts/seed-tape.js';
