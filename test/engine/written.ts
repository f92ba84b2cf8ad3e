import { JsonWriter } from '../../lib/engine';

/** The text a `writeAnalyze` / `writeTick` / `writeTicks` call produces with a fresh writer. */
export function written(write: (writer: JsonWriter) => void): string {
  const writer = new JsonWriter();
  write(writer);
  return writer.finish();
}
