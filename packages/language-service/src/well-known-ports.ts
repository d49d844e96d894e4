/** The service usually found on a port (IANA's registry and common use), for inlay hints: a short table, not a registry. */
const PORTS: ReadonlyMap<number, string> = new Map([
  [20, 'ftp-data'], [21, 'ftp'], [22, 'ssh'], [23, 'telnet'], [25, 'smtp'], [53, 'dns'], [67, 'dhcp'], [69, 'tftp'], [80, 'http'],
  [110, 'pop3'], [123, 'ntp'], [143, 'imap'], [161, 'snmp'], [389, 'ldap'], [443, 'https'], [465, 'smtps'], [514, 'syslog'],
  [587, 'submission'], [636, 'ldaps'], [853, 'dns over tls'], [873, 'rsync'], [993, 'imaps'], [995, 'pop3s'], [1433, 'mssql'],
  [1521, 'oracle'], [2049, 'nfs'], [2375, 'docker'], [2376, 'docker (tls)'], [2379, 'etcd'], [3000, 'http (dev)'], [3306, 'mysql'],
  [3389, 'rdp'], [4222, 'nats'], [5000, 'docker registry'], [5044, 'beats'], [5432, 'postgres'], [5672, 'amqp'], [5671, 'amqps'],
  [6379, 'redis'], [6443, 'kubernetes api'], [8080, 'http (alt)'], [8443, 'https (alt)'], [9000, 'http (alt)'], [9092, 'kafka'],
  [9200, 'elasticsearch'], [9418, 'git'], [11211, 'memcached'], [27017, 'mongodb'],
]);

/**
 * The usual service of a port, or undefined.
 * @public
 */
export function serviceOfPort(port: number): string | undefined {
  return PORTS.get(port);
}
