/**
 * CycloneDX 1.7 validation with `@cyclonedx/cyclonedx-library`'s strict JSON validator.
 *
 * The library's JSON validator reads its schema files from disk, so it exists only in its Node
 * build. It is loaded lazily, on the first SBOM to validate, so the client itself stays
 * browser-safe. In a browser, pass your own `sbomValidator`, or `sbomValidator: false` to skip.
 */

/** Resolves to the list of reasons the SBOM is invalid; empty when it is valid. */
export type SbomValidator = (text: string) => Promise<string[]>;

interface JsonValidatorLike { validate(data: string): Promise<unknown> }
let cached: Promise<JsonValidatorLike> | undefined;

async function load(): Promise<JsonValidatorLike> {
  // A computed specifier keeps bundlers from inlining the library: its Node build locates its
  // schema files relative to its own directory, which only works when it stays a package.
  const specifier = ['@cyclonedx', 'cyclonedx-library'].join('/');
  const mod = (await import(/* @vite-ignore */ specifier)) as Record<string, any>;
  const lib = mod.Validation ? mod : (mod.default ?? {});
  const Strict = lib.Validation?.JsonStrictValidator;
  if (typeof Strict !== 'function') {
    throw new Error('CycloneDX JSON validation is not available in this environment (the library provides it only in Node); pass your own `sbomValidator`, or `sbomValidator: false` to skip validation');
  }
  return new Strict(lib.Spec.Version.v1dot7) as JsonValidatorLike;
}

function describeError(e: Record<string, unknown>): string {
  const where = typeof e.instancePath === 'string' && e.instancePath !== '' ? e.instancePath : '(document)';
  const params = e.params && typeof e.params === 'object' ? e.params as Record<string, unknown> : {};
  const extra =
    Array.isArray(params.allowedValues) ? ` (${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')})` :
    typeof params.additionalProperty === 'string' ? ` ("${params.additionalProperty}")` :
    typeof params.missingProperty === 'string' ? '' : '';
  return `${where}: ${String(e.message ?? e.keyword ?? 'invalid')}${extra}`;
}

/** The default SBOM validator: CycloneDX 1.7, strict (no unknown members). */
export const cyclonedxStrictValidator: SbomValidator = async (text) => {
  cached ??= load();
  let validator: JsonValidatorLike;
  try {
    validator = await cached;
  } catch (error) {
    cached = undefined;
    throw error;
  }
  const result = await validator.validate(text);
  if (result === null || result === undefined) return [];
  if (Array.isArray(result)) {
    const reasons = result.map((e) => describeError(e as Record<string, unknown>));
    return [...new Set(reasons)].slice(0, 20);
  }
  return [String(result)];
};
