/**
 * `npm run bench:bundle`: its options first (bundle-args.ts), so `--help` and a bad flag answer
 * before aws-cdk-lib loads; then the measurement (bundle.ts).
 */
import './bundle-args';

await import('./bundle');
