// Entry of a campaign worker thread: worker threads do not inherit the TypeScript loader, so this
// plain module registers it and then loads the worker proper (a fixed path, never text to run).
import { register } from 'tsx/esm/api';

register();
await import('./campaign-worker.ts');
