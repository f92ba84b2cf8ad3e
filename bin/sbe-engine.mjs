#!/usr/bin/env node
// Launcher: lets Node load the TypeScript CLI through tsx, then hands over to it.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/engine.ts');
await main();
