// Filled in by the trace work; see ARCHITECTURE.md.
export {};
