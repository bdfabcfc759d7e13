import type { IRawProperty, Parameters } from 'fast-check';
import { brandedExports } from '../../util/branded-exports.js';

/**
 * The user's API for fast-check properties on the seed tape: a property plus
 * the id the tape knows it by, and the parameters the project's own tests run
 * it with. Those parameters are what the gate counts the example floor
 * against, so the project's test should run it the same way:
 * `fc.assert(def.property, def.params)`.
 */

/** Global so a definition made by another copy of patchgate (or a jiti-loaded one) is still recognised. */
const BRAND = Symbol.for('patchgate.seedProperty@1');

export interface SeedPropertyDefinition<Ts = unknown> {
  /** The tape row's `id`. Unique across all seed property modules. */
  id: string;
  /** `fc.property(...)` or `fc.asyncProperty(...)`. */
  property: IRawProperty<Ts>;
  /** How the project runs it (numRuns above all); the gate counts the examples this actually runs. */
  params?: Parameters<Ts>;
}

export interface BrandedSeedProperty<Ts = unknown> extends SeedPropertyDefinition<Ts> {
  readonly [BRAND]: true;
}

export function defineSeedProperty<Ts>(definition: SeedPropertyDefinition<Ts>): BrandedSeedProperty<Ts> {
  return Object.freeze({
    ...definition,
    ...(definition.params ? { params: { ...definition.params } } : {}),
    [BRAND]: true as const,
  });
}

export function isSeedProperty(value: unknown): value is BrandedSeedProperty {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** Every definition a loaded module exports, in export order; any export may be a list. */
export function seedPropertiesOf(mod: Record<string, unknown>): BrandedSeedProperty[] {
  return brandedExports(mod, isSeedProperty);
}
