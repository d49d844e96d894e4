// Filled in by the eval work; see ARCHITECTURE.md.
export {};
