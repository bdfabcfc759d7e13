import { postgresBinDir } from '../../scripts/postgres-server.mjs';
import { inCi } from './shared.js';

export { startPostgres, type TestPostgres } from '../../scripts/postgres-server.mjs';

/** Why a real server cannot start here, when it cannot; CI must have one (.ci/run installs postgresql). */
export function postgresUnavailable(): string | undefined {
  if (postgresBinDir() !== undefined) return undefined;
  const why = 'PostgreSQL is not installed (Debian: apt-get install postgresql)';
  if (inCi()) throw new Error(`${why}; .ci/run installs it, so CI must have it`);
  return why;
}
