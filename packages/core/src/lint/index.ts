// Filled in by the lint work; see ARCHITECTURE.md.
export {};
