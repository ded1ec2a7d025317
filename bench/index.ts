/**
 * `npm run bench`: runs the standard benchmark set and prints markdown tables.
 */
import { main as runtimeOverhead } from './runtime-overhead.js';

await runtimeOverhead();
