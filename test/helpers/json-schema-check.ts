/**
 * A small JSON Schema (draft 2020-12) checker for the keywords zod's
 * `toJSONSchema` emits. No JSON Schema validator is installed here (there
 * is no ajv in node_modules), and adding one only for tests was not worth a
 * dependency: this covers type, properties, required, additionalProperties,
 * items, prefixItems, enum, const, anyOf/oneOf/allOf, $ref into $defs,
 * pattern, length, item and number bounds. A keyword it does not know throws,
 * so a schema using one can never pass unchecked.
 */

type Schema = Record<string, unknown> | boolean;

const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  'title',
  'description',
  'default',
  'examples',
  '$comment',
  'format',
]);
const KNOWN = new Set([
  ...ANNOTATIONS,
  'type',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'items',
  'prefixItems',
  'enum',
  'const',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  '$ref',
  '$defs',
  'definitions',
  'pattern',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
]);

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function matchesType(v: unknown, t: string): boolean {
  const actual = typeOf(v);
  return actual === t || (t === 'number' && actual === 'integer');
}

/** Every place `value` breaks `schema`, as `path: what`; empty when it conforms. */
export function jsonSchemaErrors(schema: Schema, value: unknown, root: Schema = schema, at = '$'): string[] {
  if (schema === true) return [];
  if (schema === false) return [`${at}: no value is allowed here`];
  for (const key of Object.keys(schema)) {
    if (!KNOWN.has(key)) throw new Error(`json-schema-check: unsupported keyword '${key}' at ${at}`);
  }
  const errors: string[] = [];
  const sub = (s: unknown, v: unknown, p: string) => jsonSchemaErrors(s as Schema, v, root, p);
  if (typeof schema.$ref === 'string') {
    const ref = schema.$ref;
    if (ref === '#') errors.push(...sub(root, value, at));
    else {
      const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
      if (!m) throw new Error(`json-schema-check: unsupported $ref '${ref}'`);
      const defs = (root as Record<string, Record<string, unknown>>)[m[1] as string];
      const target = defs?.[m[2] as string];
      if (target === undefined) throw new Error(`json-schema-check: $ref '${ref}' points at nothing`);
      errors.push(...sub(target, value, at));
    }
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((t) => matchesType(value, t))) {
      return [...errors, `${at}: expected ${types.join(' or ')}, got ${typeOf(value)}`];
    }
  }
  if (
    schema.enum !== undefined &&
    !(schema.enum as unknown[]).some((e) => JSON.stringify(e) === JSON.stringify(value))
  )
    errors.push(`${at}: not one of ${JSON.stringify(schema.enum)}`);
  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value))
    errors.push(`${at}: expected ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some((s) => sub(s, value, at).length === 0))
    errors.push(`${at}: matches none of anyOf`);
  if (Array.isArray(schema.oneOf) && schema.oneOf.filter((s) => sub(s, value, at).length === 0).length !== 1)
    errors.push(`${at}: does not match exactly one of oneOf`);
  if (Array.isArray(schema.allOf)) for (const s of schema.allOf) errors.push(...sub(s, value, at));
  if (schema.not !== undefined && sub(schema.not, value, at).length === 0) errors.push(`${at}: matches not`);
  if (typeof value === 'string') {
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value))
      errors.push(`${at}: does not match ${schema.pattern}`);
    const n = [...value].length;
    if (typeof schema.minLength === 'number' && n < schema.minLength)
      errors.push(`${at}: shorter than ${schema.minLength}`);
    if (typeof schema.maxLength === 'number' && n > schema.maxLength)
      errors.push(`${at}: longer than ${schema.maxLength}`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum)
      errors.push(`${at}: below ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum)
      errors.push(`${at}: above ${schema.maximum}`);
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum)
      errors.push(`${at}: not above ${schema.exclusiveMinimum}`);
    if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum)
      errors.push(`${at}: not below ${schema.exclusiveMaximum}`);
  }
  if (Array.isArray(value)) {
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
    value.forEach((item, i) => {
      if (i < prefix.length) errors.push(...sub(prefix[i], item, `${at}[${i}]`));
      else if (schema.items !== undefined) errors.push(...sub(schema.items, item, `${at}[${i}]`));
    });
    if (typeof schema.minItems === 'number' && value.length < schema.minItems)
      errors.push(`${at}: fewer than ${schema.minItems} items`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
      errors.push(`${at}: more than ${schema.maxItems} items`);
  }
  if (typeOf(value) === 'object') {
    const obj = value as Record<string, unknown>;
    const props = (schema.properties ?? {}) as Record<string, unknown>;
    for (const r of (schema.required ?? []) as string[])
      if (!(r in obj)) errors.push(`${at}: ${r} is required`);
    for (const [k, v] of Object.entries(obj)) {
      if (schema.propertyNames !== undefined)
        errors.push(...sub(schema.propertyNames, k, `${at}.${k} (name)`));
      if (k in props) errors.push(...sub(props[k], v, `${at}.${k}`));
      else if (schema.additionalProperties !== undefined)
        errors.push(...sub(schema.additionalProperties, v, `${at}.${k}`));
    }
  }
  return errors;
}
