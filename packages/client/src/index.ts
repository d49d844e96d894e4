// @netpolicy/client: filled in by the client work.
export {};
