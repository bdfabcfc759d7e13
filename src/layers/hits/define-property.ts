import { brandedExports } from '../../util/branded-exports.js';

/**
 * The user's API for TypeScript/JavaScript properties. A property module
 * exports definitions made with `defineProperty`, as its default export (one
 * or a list) or as named exports.
 */

/** Global so that a definition made by another copy of patchgate (or a jiti-loaded one) is still recognised. */
const BRAND = Symbol.for('patchgate.property@1');

export interface PropertyDefinition<F = unknown> {
  /** Unique across all property modules. */
  name: string;
  /** Repo-relative path of a locked JSON fixture (in FIXTURE_LOCK.json or fixtures.canonical). */
  fixture: string;
  /** Fixture fields the check depends on, as JSON paths: `total_cents`, `lines`, `lines[0].qty`. */
  claims: string[];
  /** Throws, or returns false (or a promise of false), to fail. Receives a deeply frozen fixture. */
  check(fixture: F): unknown;
}

export interface BrandedProperty<F = unknown> extends PropertyDefinition<F> {
  readonly [BRAND]: true;
}

export function defineProperty<F = unknown>(definition: PropertyDefinition<F>): BrandedProperty<F> {
  return Object.freeze({ ...definition, claims: [...definition.claims], [BRAND]: true as const });
}

export function isPropertyDefinition(value: unknown): value is BrandedProperty {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** Every definition a loaded module exports, in export order; the default export may be a list. */
export function definitionsOf(mod: Record<string, unknown>): BrandedProperty[] {
  return brandedExports(mod, isPropertyDefinition);
}
