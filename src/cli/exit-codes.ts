import type { PatchgateError } from '../errors.js';
import type { Scorecard } from '../report/scorecard.js';

export const EXIT = { accept: 0, reject: 1, input: 2, internal: 3 } as const;

/** The one place verdicts become exit codes. */
export function exitCodeFor(card: Pick<Scorecard, 'verdict' | 'errorKind'>): number {
  switch (card.verdict) {
    case 'accept':
      return EXIT.accept;
    case 'reject':
      return EXIT.reject;
    default:
      return card.errorKind === 'input' ? EXIT.input : EXIT.internal;
  }
}

export function exitCodeForError(err: PatchgateError): number {
  return err.kind === 'input' ? EXIT.input : EXIT.internal;
}
