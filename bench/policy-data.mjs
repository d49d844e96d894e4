// The policy the validate and language-server benches measure: `n` clean rules of five shapes
// (no diagnostic), pretty-printed as a user's file would be.
export function policyWithRules(n) {
  const sources = [];
  const connections = [];
  for (let i = 0; i < n; i++) {
    switch (i % 5) {
      case 0: sources.push({ pypi: { urls: [`https://pypi-${i}.example/simple`] } }); break;
      case 1: sources.push({ oci: { urls: [`https://registry-${i}.example`], repositoryPatterns: [`team-${i}/*`], operations: ['pull'] } }); break;
      case 2: sources.push({ git: { repositoryPatterns: [`org-${i}/**`], https: [{ baseUrl: `https://git-${i}.example` }], ssh: [{ host: `git-${i}.example`, port: 22, user: 'git' }] } }); break;
      case 3: connections.push({ tls: { serverNamePatterns: [`*.svc-${i}.example`], ports: [443] } }); break;
      default: connections.push({ tcp: { cidrs: [`10.${(i >> 8) & 255}.${i & 255}.0/24`], ports: [5432] } });
    }
  }
  return JSON.stringify({ default: 'deny', presets: ['pypi', 'npm'], sources, connections }, null, 2);
}
