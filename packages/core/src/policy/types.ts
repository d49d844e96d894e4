/** Types of the network policy document (the service's "Network policy document"; schemas/network-policy.schema.json). */
import { BUILTIN_PRESET_NAMES } from '../generated/data';

export type DefaultAction = 'deny' | 'allow';

export const HTTP_SOURCE_KINDS = ['pypi', 'npm', 'rubygems', 'apk', 'golang', 'nix'] as const;
export type HttpSourceKind = (typeof HTTP_SOURCE_KINDS)[number];
export const SOURCE_KINDS = [...HTTP_SOURCE_KINDS, 'oci', 'git', 'apt', 'cargo'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];
export const CONNECTION_KINDS = ['tls', 'tcp', 'udp', 'icmp'] as const;
export type ConnectionKind = (typeof CONNECTION_KINDS)[number];

/** Names of the built-in presets, generated at build time from schemas/presets.json (the one list). */
export const PRESET_NAMES = BUILTIN_PRESET_NAMES;
/** A built-in preset name. A user catalog may add others (see `PresetCatalog`): `Policy.presets` takes any string. */
export type PresetName = (typeof PRESET_NAMES)[number];

export interface HttpSource { urls: string[] }
export type OciOperation = 'pull' | 'push' | 'delete';
export interface OciSource { urls: string[]; repositoryPatterns?: string[]; operations: OciOperation[] }
export interface SshTransport { host: string; port: number; user?: string; upstreamKnownHosts?: string[] }
export interface GitSource { repositoryPatterns?: string[]; https?: { baseUrl: string }[]; ssh?: SshTransport[] }
export interface AptSource { urls: string[]; purlNamespace?: string }
export interface CargoSource { indexUrl: string; downloadUrl: string }

export type Source =
  | { pypi: HttpSource } | { npm: HttpSource } | { rubygems: HttpSource } | { apk: HttpSource }
  | { golang: HttpSource } | { nix: HttpSource } | { oci: OciSource } | { git: GitSource }
  | { apt: AptSource } | { cargo: CargoSource };

export interface TlsConnection { serverNamePatterns?: string[]; cidrs?: string[]; ports: number[]; alpn?: string[] }
export interface TcpConnection { hostPatterns?: string[]; cidrs?: string[]; ports?: number[] }
export interface UdpConnection { cidrs: string[]; ports?: number[] }
export interface IcmpConnection { cidrs: string[] }

export type Connection =
  | { tls: TlsConnection } | { tcp: TcpConnection } | { udp: UdpConnection } | { icmp: IcmpConnection };

export interface Policy {
  default?: DefaultAction;
  /** Preset names of the catalog in force (the built-in names, or those a user catalog adds). */
  presets?: Array<PresetName | (string & {})>;
  sources?: Source[];
  connections?: Connection[];
}
