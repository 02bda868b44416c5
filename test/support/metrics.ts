// Reading the service's /metrics (Prometheus text exposition) in tests.

/** A sample value as Prometheus reads it (Go's ParseFloat: `NaN` and `Inf` in any case; prom-client writes `Nan`). */
function sampleValue(v: string): number | undefined {
  if (/^[+-]?\d+(\.\d*)?(e[+-]?\d+)?$/i.test(v) || /^[+-]?\.\d+(e[+-]?\d+)?$/i.test(v)) return Number(v);
  if (/^nan$/i.test(v)) return Number.NaN;
  if (/^[+-]?inf$/i.test(v)) return v.startsWith('-') ? -Infinity : Infinity;
  return undefined;
}

/** Every sample of a Prometheus text exposition; throws on a line that is neither a comment nor a sample. */
export function parseMetrics(
  text: string,
): { name: string; labels: Record<string, string>; value: number }[] {
  const samples = [];
  for (const line of text.split('\n')) {
    if (line === '' || /^# (HELP|TYPE) [a-zA-Z_:][\w:]* /.test(line)) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    const value = m ? sampleValue(m[3]!) : undefined;
    if (!m || value === undefined) throw new Error(`not Prometheus text: ${line}`);
    const labels = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]),
    );
    samples.push({ name: m[1]!, labels, value });
  }
  return samples;
}
