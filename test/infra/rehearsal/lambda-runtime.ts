/**
 * Runs a function's bundle from a synthesized cloud assembly in a Node process of its own, the
 * way Lambda runs it: only the function's environment (from the template, its references
 * resolved to local stand-ins), the handler imported once, results serialized as JSON and held
 * to Lambda's 6 MB response limit.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { INVOCATION_PAYLOAD_LIMIT_BYTES } from '../../../local/http-api-event';

export interface BundledFunctionOptions {
  /** The asset folder of the function in the cloud assembly. */
  assetDir: string;
  /** The template's `Handler`, e.g. `index.handler`. */
  handler: string;
  functionName: string;
  timeoutSeconds: number;
  memoryMb: number;
  /** The whole environment of the process, as Lambda gives it: nothing is inherited. */
  env: Record<string, string>;
}

export interface BundledFunction {
  /** The Node version the bundle runs on, as the process reported it. */
  nodeVersion: string;
  invoke(event: APIGatewayProxyEventV2): Promise<unknown>;
  close(): Promise<void>;
}

type ChildMessage =
  | { kind: 'ready'; version: string }
  | { kind: 'init-error'; message: string }
  | { id: number; kind: 'result'; payload: string }
  | { id: number; kind: 'error'; errorType: string; errorMessage: string };

export async function startBundledFunction(options: BundledFunctionOptions): Promise<BundledFunction> {
  const [file, exportName] = splitHandler(options.handler);
  const child: ChildProcess = fork(
    join(import.meta.dirname, 'lambda-child.mjs'),
    [
      join(options.assetDir, `${file}.mjs`),
      exportName,
      options.functionName,
      String(options.timeoutSeconds),
      String(options.memoryMb),
    ],
    // process.execPath: the project's Node 24, the runtime the template names.
    {
      execPath: process.execPath,
      execArgv: [],
      env: options.env,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;

  const nodeVersion = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) =>
      reject(new Error(`${options.functionName} exited with ${code} at init:\n${stderr}`)),
    );
    child.on('message', (message: ChildMessage) => {
      if (message.kind === 'ready') resolve(message.version);
      else if (message.kind === 'init-error')
        reject(new Error(`${options.functionName} failed at init: ${message.message}`));
      else {
        const waiting = pending.get(message.id);
        pending.delete(message.id);
        if (waiting === undefined) return;
        if (message.kind === 'error') {
          waiting.reject(
            new Error(`${options.functionName} failed: ${message.errorType}: ${message.errorMessage}`),
          );
        } else if (Buffer.byteLength(message.payload, 'utf8') > INVOCATION_PAYLOAD_LIMIT_BYTES) {
          waiting.reject(
            new Error(`${options.functionName} returned more than Lambda's 6 MB response limit`),
          );
        } else {
          waiting.resolve(JSON.parse(message.payload));
        }
      }
    });
  });

  return {
    nodeVersion,
    invoke: (event) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        child.send({ id, event });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

function splitHandler(handler: string): [string, string] {
  const dot = handler.lastIndexOf('.');
  return [handler.slice(0, dot), handler.slice(dot + 1)];
}
