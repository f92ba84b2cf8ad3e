/**
 * Whether a text that is not one JSON document is JSON Lines (the OpenTelemetry Collector's file
 * exporter writes one export per line): its first line that is not blank is a JSON value on its
 * own, and another line that is not blank follows. A document spread over lines (`{` alone on
 * its first line) is not: it is JSON with a mistake in it, and is refused as such. Cheap: it
 * parses the first line only (`parseJsonLines` of lib/formats reads them all).
 */
export function looksLikeJsonLines(text: string): boolean {
  // (A byte order mark needs no step of its own: `trim` removes U+FEFF with the other blanks.)
  let start = 0;
  // Stryker disable next-line EqualityOperator: at start = length the line is empty and the loop ends the same
  while (start < text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    const line = text.slice(start, end).trim();
    if (line !== '') {
      if (newline === -1 || text.slice(newline + 1).trim() === '') return false;
      try {
        JSON.parse(line);
        return true;
      } catch {
        return false;
      }
    }
    start = end + 1;
  }
  return false;
}
