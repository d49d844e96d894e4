/**
 * CycloneDX 1.7 validation with `@cyclonedx/cyclonedx-library`'s strict JSON validator: the
 * client's default `sbomValidator`, also published alone as `@netpolicy/client/sbom-validator`.
 *
 * The library and the Ajv packages its JSON validator needs are optional peer dependencies of the
 * client: a program that validates SBOMs installs them (`npm install @cyclonedx/cyclonedx-library
 * ajv ajv-formats ajv-formats-draft2019`), one that passes `sbomValidator: false` (a browser
 * program, say) neither installs nor bundles them. The library is loaded lazily, on the first
 * SBOM to validate; its JSON validator reads its schema files from disk, so it exists only in
 * its Node build. In a browser, pass your own `sbomValidator`, or `sbomValidator: false` to skip.
 * @module @netpolicy/client/sbom-validator
 */
import { ConfigError } from './errors';

/**
 * Resolves to the list of reasons the SBOM is invalid; empty when it is valid.
 * @public
 */
export type SbomValidator = (text: string) => Promise<string[]>;

interface JsonValidatorLike { validate(data: string): Promise<unknown> }
/** The library's validator, and its error for an optional dependency (Ajv) it cannot load. */
interface Loaded { validator: JsonValidatorLike; Missing: unknown }
let cached: Promise<Loaded> | undefined;

/** The packages to install for the default validator: the library and the Ajv packages its JSON validator needs. */
const INSTALL = 'npm install @cyclonedx/cyclonedx-library ajv ajv-formats ajv-formats-draft2019';
const SKIP = 'or pass your own `sbomValidator`, or `sbomValidator: false` to skip SBOM validation';

/** The error for a library (or one of its Ajv packages) that cannot be loaded: names what to install. */
function missing(what: string, cause: unknown): ConfigError {
  const reason = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
  const error = new ConfigError(`SBOM validation needs ${what}, an optional peer dependency of @netpolicy/client, which could not be loaded (${reason}): install it with \`${INSTALL}\`, ${SKIP}`);
  (error as { cause?: unknown }).cause = cause;
  return error;
}

async function load(): Promise<Loaded> {
  // A computed specifier keeps bundlers from inlining the library: its Node build locates its
  // schema files relative to its own directory, which only works when it stays a package.
  const specifier = ['@cyclonedx', 'cyclonedx-library'].join('/');
  let mod: Record<string, any>;
  try {
    mod = (await import(/* @vite-ignore */ specifier)) as Record<string, any>;
  } catch (error) {
    throw missing('@cyclonedx/cyclonedx-library', error);
  }
  const lib = mod.Validation ? mod : (mod.default ?? {});
  const Strict = lib.Validation?.JsonStrictValidator;
  if (typeof Strict !== 'function') {
    throw new ConfigError(`CycloneDX JSON validation is not available in this environment (the library provides it only in Node); ${SKIP.replace(/^or /, '')}`);
  }
  return { validator: new Strict(lib.Spec.Version.v1dot7) as JsonValidatorLike, Missing: lib.Validation.MissingOptionalDependencyError };
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

/**
 * The default SBOM validator: CycloneDX 1.7, strict (no unknown members).
 * @public
 */
export const cyclonedxStrictValidator: SbomValidator = async (text) => {
  cached ??= load();
  let loaded: Loaded;
  try {
    loaded = await cached;
  } catch (error) {
    cached = undefined;
    throw error;
  }
  let result: unknown;
  try {
    result = await loaded.validator.validate(text);
  } catch (error) {
    // The library loads Ajv, ajv-formats and ajv-formats-draft2019 on its first validation.
    if (typeof loaded.Missing === 'function' && error instanceof loaded.Missing) throw missing('ajv, ajv-formats and ajv-formats-draft2019', error);
    throw error;
  }
  if (result === null || result === undefined) return [];
  if (Array.isArray(result)) {
    const reasons = result.map((e) => describeError(e as Record<string, unknown>));
    return [...new Set(reasons)].slice(0, 20);
  }
  return [String(result)];
};
