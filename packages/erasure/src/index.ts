export * from "./erasure-audit";
export * from "./erasure-columns";
export * from "./erasure-stages";
export * from "./erasure-status";
export * from "./erasure-transitions";
export * from "./proof-delays";
export * from "./tombstone-progress";
