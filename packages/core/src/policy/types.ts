/** Types of the network policy document (interface.md, "Network policy document"). */

export type DefaultAction = 'deny' | 'allow';

export const HTTP_SOURCE_KINDS = ['pypi', 'npm', 'rubygems', 'apk', 'golang', 'nix'] as const;
export type HttpSourceKind = (typeof HTTP_SOURCE_KINDS)[number];
export const SOURCE_KINDS = [...HTTP_SOURCE_KINDS, 'oci', 'git', 'apt', 'cargo'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];
export const CONNECTION_KINDS = ['tls', 'tcp', 'udp', 'icmp'] as const;
export type ConnectionKind = (typeof CONNECTION_KINDS)[number];

export const PRESET_NAMES = [
  'alpine', 'forge-a', 'nix-cache', 'cargo', 'debian', 'oci-apt', 'oci-hub-a', 'oci-cloud-public',
  'fonts', 'oci-cloud-b', 'oci-forge-registry', 'forge-b', 'forge-c', 'golang', 'git-host-d',
  'node-apt', 'npm', 'openembedded', 'pypi', 'oci-hub-c', 'apt-arm', 'rubygems', 'ubuntu', 'yocto',
  'generic-http',
] as const;
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
  presets?: PresetName[];
  sources?: Source[];
  connections?: Connection[];
}
