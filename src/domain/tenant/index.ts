export * from './tenant-state.js';
export * from './tenant-decisions.js';
export * from './tenant-snapshot.js';
