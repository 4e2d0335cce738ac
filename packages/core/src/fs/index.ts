export { fsPlugin } from './plugin.js';
export { currentLineage } from './plugin.js';
export type { DataLineage } from './data-lineage.js';
