export { fsPlugin } from './plugin.js';
