/**
 * Options a JavaScript caller can get wrong: an unknown key is a `config` error naming it and the
 * nearest option (ajv's strict mode), for the client's options and for a call's; the deprecated
 * `validateSbom: false` (the name earlier docs gave) skips SBOM validation as `sbomValidator: false` does.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { ApiError, ConfigError, NetpolicyClient, type ClientOptions } from '../src/index';

const baseUrl = 'https://provenance.example';
const job = { repo: 'acme/legacy', jobId: '7' };
const legacySbom = readFileSync(new URL('../../../fixtures/sboms/invalid-legacy-7.cdx.json', import.meta.url), 'utf8');
const trace = JSON.stringify({ job: { provider: 'ciprovider', repository: 'acme/legacy', job_id: '7' }, observations: [] });

/** A fetch that answers every SBOM request with the legacy SBOM (not valid CycloneDX 1.7) and every other with a trace. */
function service() {
  return vi.fn(async (url: string | URL | Request) => String(url).includes('/sbom')
    ? new Response(legacySbom, { headers: { 'content-type': 'application/vnd.cyclonedx+json; version=1.7' } })
    : new Response(trace, { headers: { 'content-type': 'application/json' } }));
}

/** The error `run` throws (or its promise rejects with). */
async function failure(run: () => unknown): Promise<Error> {
  try {
    await run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a failure');
}

/** What a JavaScript caller may pass: any keys at all. */
const untyped = (options: Record<string, unknown>) => options as unknown as ClientOptions;

describe('unknown client options', () => {
  it.each([
    [{ baseUrl, tokne: 'Zq8xK2mV9pLw4RtY' }, 'unknown option `tokne`; did you mean `token`?'],
    [{ baseURL: baseUrl }, 'unknown option `baseURL`; did you mean `baseUrl`?'],
    [{ baseUrl, timeout: 5000 }, 'unknown option `timeout`; did you mean `timeoutMs`?'],
    [{ baseUrl, maxAttempt: 2 }, 'unknown option `maxAttempt`; did you mean `maxAttempts`?'],
    [{ baseUrl, validateSBOM: false }, 'unknown option `validateSBOM`; did you mean `validateSbom`?'],
    [{ baseUrl, 'a`b\n': 1 }, expect.stringMatching(/^unknown option `a\\u0060b\\u000a`; the options are `baseUrl`, `token`, /)],
    [{ baseUrl, tokne: 'x', headers: {} }, 'unknown options `tokne` (did you mean `token`?), `headers`'],
  ])('%j is refused: %s', (options, message) => {
    const error = (() => { try { new NetpolicyClient(untyped(options)); } catch (e) { return e; } })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ kind: 'config', message });
  });

  it('refuses before any other check, so a misspelt baseUrl is named as such', () => {
    expect(() => new NetpolicyClient(untyped({ baseurl: baseUrl }))).toThrow('unknown option `baseurl`; did you mean `baseUrl`?');
  });

  it.each([[undefined, 'undefined'], [null, 'null'], ['https://provenance.example', 'string'], [[baseUrl], 'an array']])('refuses %j as the options', (options, got) => {
    expect(() => new NetpolicyClient(options as unknown as ClientOptions)).toThrow(new ConfigError(`the options must be an object, got ${got}`));
  });

  it('takes every option of ClientOptions', () => {
    const every: Required<ClientOptions> = {
      baseUrl, token: 'Zq8xK2mV9pLw4RtY', fetch: service(), timeoutMs: 1000, maxAttempts: 1, retryBaseMs: 1,
      retryMaxDelayMs: 1, totalTimeoutMs: 1000, maxResponseBytes: 1 << 20, maxRedirects: 0, sbomValidator: false,
      validateSbom: false, onRetry: () => {}, onProgress: () => {}, random: () => 0.5,
    };
    expect(new NetpolicyClient(every).baseUrl.href).toBe(`${baseUrl}/`);
  });
});

describe('unknown call options', () => {
  const call = (options: unknown) => options as { signal?: AbortSignal };

  it.each([
    [{ signl: new AbortController().signal }, 'unknown call option `signl`; did you mean `signal`?'],
    [{ onProgres: () => {} }, 'unknown call option `onProgres`; did you mean `onProgress`?'],
    [{ timeoutMs: 5 }, 'unknown call option `timeoutMs`; the call options are `signal`, `onProgress`'],
  ])('%j is refused, with nothing sent: %s', async (options, message) => {
    const fetch = service();
    const client = new NetpolicyClient({ baseUrl, fetch, sbomValidator: false });
    for (const run of [
      () => client.getSbom(job, call(options)),
      () => client.getNetworkTrace(job, call(options)),
      () => client.findArtifact({ kind: 'oci_manifest', digestAlgorithm: 'sha256', digestValue: 'a'.repeat(64) }, call(options)),
    ]) {
      const error = await failure(run);
      expect(error).toBeInstanceOf(ConfigError);
      expect(error).toMatchObject({ kind: 'config', message });
    }
    expect(fetch).not.toHaveBeenCalled();
  });

  it('refuses call options that are not an object', async () => {
    const client = new NetpolicyClient({ baseUrl, fetch: service() });
    expect(await failure(() => client.getNetworkTrace(job, call(null)))).toEqual(new ConfigError('the call options must be an object, got null'));
  });

  it('takes signal and onProgress', async () => {
    const onProgress = vi.fn();
    const client = new NetpolicyClient({ baseUrl, fetch: service() });
    const result = await client.getNetworkTrace(job, { signal: new AbortController().signal, onProgress });
    expect(result.data.job.job_id).toBe('7');
    expect(onProgress).toHaveBeenCalled();
  });
});

describe('validateSbom, the deprecated name of sbomValidator: false', () => {
  it('the legacy SBOM fails CycloneDX 1.7 validation by default', async () => {
    const error = await failure(() => new NetpolicyClient({ baseUrl, fetch: service() }).getSbom(job));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ kind: 'invalid-response', message: expect.stringMatching(/^the SBOM is not valid CycloneDX 1.7: \/serialNumber/) });
  });

  it.each<[string, Partial<ClientOptions>]>([
    ['validateSbom: false', { validateSbom: false }],
    ['sbomValidator: false', { sbomValidator: false }],
    ['both', { validateSbom: false, sbomValidator: false }],
  ])('%s: the legacy SBOM is returned, not validated', async (_name, options) => {
    const fetch = service();
    const result = await new NetpolicyClient({ baseUrl, fetch, ...options }).getSbom(job);
    expect(result).toMatchObject({ validated: false, text: legacySbom, data: { bomFormat: 'CycloneDX' } });
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('validateSbom: true keeps the default validator, or the one given', async () => {
    expect(await failure(() => new NetpolicyClient({ baseUrl, fetch: service(), validateSbom: true }).getSbom(job))).toMatchObject({ kind: 'invalid-response' });
    const sbomValidator = vi.fn(async () => []);
    const result = await new NetpolicyClient({ baseUrl, fetch: service(), validateSbom: true, sbomValidator }).getSbom(job);
    expect(result.validated).toBe(true);
    expect(sbomValidator).toHaveBeenCalledWith(legacySbom);
  });

  it.each<[Record<string, unknown>, string]>([
    [{ validateSbom: false, sbomValidator: async () => [] }, 'validateSbom: false contradicts sbomValidator: a function; pass only sbomValidator'],
    [{ validateSbom: true, sbomValidator: false }, 'validateSbom: true contradicts sbomValidator: false; pass only sbomValidator'],
    [{ validateSbom: 'no' }, 'validateSbom must be a boolean, got string'],
    [{ sbomValidator: true }, 'sbomValidator must be a function (text) => Promise<string[]> or false, got boolean'],
  ])('%j is refused', (options, message) => {
    expect(() => new NetpolicyClient(untyped({ baseUrl, ...options }))).toThrow(new ConfigError(message));
  });
});
