/**
 * Stands in for the client's `sbom-validator` in the bundles of commands that never validate an
 * SBOM as CycloneDX 1.7 (scripts/build/cli.mjs, `withoutSbomValidator`): explain passes `sbomValidator:
 * false`. The real module loads the CycloneDX library with a dynamic `import()`, which a bundle
 * loaded from its V8 code cache cannot run (scripts/code-cache.cjs refuses such a bundle).
 */
export type SbomValidator = (text: string) => Promise<string[]>;

export const cyclonedxStrictValidator: SbomValidator = async () => {
  throw new Error('CycloneDX validation is not part of this command\'s bundle; pass sbomValidator: false');
};
