/**
 * `npm run bench`: its options first (engine-args.ts), so `--help` and a bad flag answer before
 * the benchmark's own imports load; then the benchmark (engine.ts).
 */
import './engine-args';

await import('./engine');
