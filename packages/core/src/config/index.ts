export { PROJECT_CONFIG_FILE, parseProjectConfig, resolvePath, type ProjectConfig, type ProjectConfigResult } from './project-config';
