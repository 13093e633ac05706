// Entry of the Markdown worker threads (src/render/pool.ts, piscina). The project runs TypeScript
// through tsx without a build step; a worker thread does not inherit the parent's module hooks on
// every Node version (nor vitest's), so it registers tsx itself before loading the tasks.
import { register } from 'tsx/esm/api';

register();
const { runTask } = await import('./tasks.ts');

export default runTask;
