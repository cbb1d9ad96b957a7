// Per-commit result files with known changes, for the History cell's test
// and scripts/bench-history: one samples file per commit (docs/format.md),
// named in commit order (`c0000.json`, …) and dated an hour apart, each
// holding the same series. A series' level is its base value times the
// steps it has taken by that commit (`steps`: {series, at, ratio}, `at` the
// first commit after the step); every value gets a commit's own offset and
// a measurement's noise from a seeded generator, so the files are the same
// from run to run.

/** xorshift32 in [0, 1): deterministic, no Math.random. */
function generator(seed) {
  let state = seed >>> 0 || 0x9e3779b9;
  return () => {
    state ^= state << 13; state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5; state >>>= 0;
    return state / 4294967296;
  };
}

/**
 * The files as [name, text] pairs. `commits` files, `series` series named
 * `s000`, … (units ns), `executions` × `measurements` values per series;
 * `noise`: the relative SD between commits (`between`) and within one
 * (`within`).
 */
export function historyFiles({
  commits, series, executions = 1, measurements = 5, steps = [], seed = 7, noise = { between: 0.002, within: 0.003 },
}) {
  const rand = generator(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
  const names = Array.from({ length: series }, (_, j) => `s${String(j).padStart(3, '0')}`);
  const bases = names.map((_, j) => 1000 + 37 * j);
  const start = Date.UTC(2026, 9, 1);
  const out = [];
  for (let i = 0; i < commits; i++) {
    const body = names.map((name, j) => {
      let level = bases[j];
      for (const s of steps) if (s.series === j && i >= s.at) level *= s.ratio;
      const commit = level * (1 + noise.between * gauss());
      const ex = Array.from({ length: executions }, () =>
        Array.from({ length: measurements }, () => Math.round(commit * (1 + noise.within * gauss()) * 1000) / 1000));
      return { name, unit: 'ns', executions: ex };
    });
    out.push([`c${String(i).padStart(4, '0')}.json`, JSON.stringify({
      format: 'tickbook', format_version: '1.0', kind: 'samples',
      source: `generated history, commit ${i}`,
      host: { hostname: 'history-machine', date: new Date(start + i * 3_600_000).toISOString().replace('.000Z', 'Z') },
      series: body,
    })]);
  }
  return out;
}
