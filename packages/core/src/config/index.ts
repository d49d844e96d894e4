export { PROJECT_CONFIG_FILE, parseProjectConfig, type ProjectConfig, type ProjectConfigResult } from './project-config';
