// Test helper: fast-check arbitraries derived from the JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of the
// gateway's OpenAPI document, for the contract fuzz test. Covers the keywords the document uses: $ref, allOf,
// anyOf/oneOf, type (and type arrays), const, enum, string length/pattern/format, numeric bounds, arrays, objects,
// records. Conditional keywords (if/then/else, not) constrain responses only and are ignored here.
import fc from 'fast-check';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export interface ArbitraryOptions {
  /** Values for string schemas with `format: uri` (the fuzz points them at its local image server). */
  uri?: fc.Arbitrary<string>;
  /** Values for `format: binary` (file parts). */
  binary?: fc.Arbitrary<unknown>;
}

export class SchemaArbitraries {
  constructor(
    private readonly document: Json,
    private readonly options: ArbitraryOptions = {},
  ) {}

  /** Follows a local $ref (`#/components/...`). */
  resolve(schema: unknown): Json {
    let node = schema;
    for (let hops = 0; isObject(node) && typeof node.$ref === 'string'; hops++) {
      if (hops > 20) throw new Error(`$ref loop at ${String(node.$ref)}`);
      const target = node.$ref
        .slice(2)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce<unknown>((acc, key) => (isObject(acc) ? acc[key] : undefined), this.document);
      const { $ref: _ref, ...siblings } = node;
      node = isObject(target) ? { ...target, ...siblings } : target;
    }
    if (!isObject(node)) return {};
    return node;
  }

  /** allOf folded into one schema: properties and required lists merged (enough to generate instances). */
  private flatten(schema: Json): Json {
    const node = this.resolve(schema);
    if (!Array.isArray(node.allOf)) return node;
    const { allOf, ...rest } = node;
    let merged: Json = { ...rest };
    for (const part of allOf as unknown[]) {
      const flat = this.flatten(part as Json);
      merged = {
        ...flat,
        ...merged,
        properties: { ...(isObject(flat.properties) ? flat.properties : {}), ...(isObject(merged.properties) ? merged.properties : {}) },
        required: [...new Set([...((flat.required as string[]) ?? []), ...((merged.required as string[]) ?? [])])],
      };
      if (isObject(flat.properties) && isObject(merged.properties)) {
        // A narrowing part (e.g. status: const) wins over the base property it narrows.
        for (const [key, value] of Object.entries(flat.properties)) {
          const base = (merged.properties as Json)[key];
          if (isObject(value) && ('const' in value || 'enum' in value)) (merged.properties as Json)[key] = value;
          else if (base === undefined) (merged.properties as Json)[key] = value;
        }
      }
    }
    return merged;
  }

  /** Instances the schema accepts (best effort: constraints between members are not solved). */
  valid(schema: unknown, depth = 0): fc.Arbitrary<unknown> {
    const node = this.flatten(schema as Json);
    if ('const' in node) return fc.constant(node.const);
    if (Array.isArray(node.enum)) return fc.constantFrom(...(node.enum as unknown[]));
    const branches = (node.oneOf ?? node.anyOf) as unknown[] | undefined;
    if (Array.isArray(branches) && branches.length > 0 && !isObject(node.properties)) {
      // Branches that only require members (e.g. oneOf [{required: [result]}, ...]) narrow the node itself.
      const options = branches.map((branch) => {
        const { oneOf: _o, anyOf: _a, ...rest } = node;
        return this.valid({ ...rest, ...this.resolve(branch) }, depth + 1);
      });
      return fc.oneof(...options);
    }
    const types = Array.isArray(node.type) ? (node.type as string[]) : typeof node.type === 'string' ? [node.type] : [];
    if (types.length > 1) return fc.oneof(...types.map((type) => this.valid({ ...node, type }, depth + 1)));
    const type = types[0] ?? (isObject(node.properties) ? 'object' : undefined);
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return fc.integer({ min: (node.minimum as number | undefined) ?? -1_000_000, max: (node.maximum as number | undefined) ?? 1_000_000 });
      case 'number': {
        const min = (node.minimum as number | undefined) ?? (node.exclusiveMinimum as number | undefined) ?? -1e6;
        return fc.double({ min, max: (node.maximum as number | undefined) ?? 1e6, noNaN: true, noDefaultInfinity: true }).filter((n) => node.exclusiveMinimum === undefined || n > (node.exclusiveMinimum as number));
      }
      case 'string':
        return this.string(node);
      case 'array': {
        if (depth > 4) return fc.constant([]);
        const items = this.valid(node.items ?? {}, depth + 1);
        const constraints = { minLength: (node.minItems as number | undefined) ?? 0, maxLength: Math.min((node.maxItems as number | undefined) ?? 4, 4) };
        return node.uniqueItems ? fc.uniqueArray(items, { ...constraints, selector: (v) => JSON.stringify(v) }) : fc.array(items, constraints);
      }
      case 'object': {
        if (depth > 4) return fc.constant({});
        const properties = isObject(node.properties) ? node.properties : {};
        const required = new Set((node.required as string[] | undefined) ?? []);
        if (Object.keys(properties).length === 0 && isObject(node.additionalProperties)) {
          return fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), this.valid(node.additionalProperties, depth + 1), { maxKeys: 3 });
        }
        const record = Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, this.valid(value, depth + 1)]));
        return fc.record(record, { requiredKeys: Object.keys(properties).filter((key) => required.has(key)) });
      }
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  }

  private string(node: Json): fc.Arbitrary<string> {
    const min = (node.minLength as number | undefined) ?? 0;
    const max = (node.maxLength as number | undefined) ?? Number.POSITIVE_INFINITY;
    if (node.format === 'binary' && this.options.binary) return this.options.binary as fc.Arbitrary<string>;
    if (node.format === 'uri' && this.options.uri) return this.options.uri;
    if (node.format === 'email') return fc.emailAddress().filter((s) => s.length <= max);
    if (node.format === 'date-time') return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
    if (Array.isArray(node.examples) && node.examples.length > 0) {
      // Documented examples are valid values of a meaning the schema alone cannot say (e.g. module lists).
      const examples = fc.constantFrom(...(node.examples as string[]));
      const rest = this.string({ ...node, examples: undefined });
      return fc.oneof({ weight: 3, arbitrary: examples }, { weight: 1, arbitrary: rest });
    }
    if (typeof node.pattern === 'string') {
      // stringMatching builds values from the regex; the length limits are applied after it.
      return fc.stringMatching(new RegExp(node.pattern)).filter((s) => s.length >= min && s.length <= max);
    }
    return fc.string({ minLength: min, maxLength: Math.max(min, Math.min(max, 40)), unit: 'grapheme' });
  }

  /** Instances the schema refuses, or that probe its edges: wrong types, missing or extra members, oversized strings. */
  invalid(schema: unknown): fc.Arbitrary<unknown> {
    const node = this.flatten(schema as Json);
    const wrongType = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.string({ maxLength: 10 }), fc.array(fc.integer(), { maxLength: 3 }), fc.constant({}));
    const properties = isObject(node.properties) ? node.properties : undefined;
    if (!properties || Object.keys(properties).length === 0) return fc.oneof(wrongType, fc.string({ minLength: 300, maxLength: 2000 }));
    const keys = Object.keys(properties);
    const base = this.valid(node) as fc.Arbitrary<Json>;
    return fc.oneof(
      wrongType,
      // A member removed (a required one gives its own code).
      fc.tuple(base, fc.constantFrom(...keys)).map(([value, key]) => {
        const { [key]: _drop, ...rest } = value;
        return rest;
      }),
      // A member of the wrong type.
      fc.tuple(base, fc.constantFrom(...keys), wrongType).map(([value, key, wrong]) => ({ ...value, [key]: wrong })),
      // Members the schema does not know.
      fc.tuple(base, fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 1 }), { minKeys: 1, maxKeys: 3 })).map(([value, extra]) => ({ ...extra, ...value })),
      // An oversized string member.
      fc.tuple(base, fc.constantFrom(...keys), fc.integer({ min: 257, max: 5000 })).map(([value, key, length]) => ({ ...value, [key]: 'x'.repeat(length) })),
    );
  }
}
