export * from './tenant-state.js';
export * from './tenant-commands.js';
export * from './tenant-decider.js';
export * from './tenant-snapshot.js';
