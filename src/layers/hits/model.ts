/**
 * The shared vocabulary of the hits layer: what a property is, what a run of
 * its check produced, and the per-revision hit report (field names as the original proposal's
 * hit_report.json has them, so its tools read ours).
 */

export type Status = 'pass' | 'fail';

/** A property as the scorer sees it, whatever language it is written in. */
export interface PropertyInfo {
  name: string;
  /** Repo-relative path of the locked fixture it is checked against. */
  fixture: string;
  /** Claimed fixture fields, as JSON paths (`lines`, `lines[0].qty`, `customer.address.zip`). */
  claims: string[];
  /** Where it came from, for messages: a module path, a harness command, a command name. */
  source: string;
}

/** One perturbation of a fixture: usually one path and one operator; a declared interaction has two of each. */
export interface MutantLabel {
  paths: string[];
  operators: string[];
}

export interface MutantOutcome extends MutantLabel {
  status: Status;
}

/** Everything one run learned about one property on one revision. */
export interface PropertyRun {
  property: PropertyInfo;
  baseline: Status;
  /** Why the baseline failed, when it did. */
  baselineError?: string;
  mutants: MutantOutcome[];
}

/** A row of hit_report.json. The seed's field names are kept; `hit_operators`, `fixture` and `source` are ours. */
export interface HitReportRow {
  property: string;
  baseline: Status;
  hit_count: number;
  hits: string[];
  claimed: string[];
  false_claims: string[];
  unclaimed_hits: string[];
  /** For each hit path, the operators that flipped the property's status. */
  hit_operators: Record<string, string[]>;
  fixture: string;
  source: string;
}
