import { isReasonCode, REASON_CODES } from '../../codes.js';
import type { CliIO } from '../io.js';
import { usage } from '../usage.js';

export async function explainCommand(args: string[], io: CliIO): Promise<number> {
  const code = args[0]?.toUpperCase();
  if (!code || args.length > 1)
    throw usage('explain takes one reason code, e.g. `patchgate explain FIXTURE_CHANGED`');
  if (!isReasonCode(code))
    throw usage(`unknown reason code '${args[0]}'. Known codes: ${Object.keys(REASON_CODES).join(', ')}`);
  io.stdout.write(`${code}\n  ${REASON_CODES[code]}\n`);
  return 0;
}
