// Scenario selection and target evaluation of the benchmark on made-up results (no measurement).
import { describe, expect, it } from 'vitest';
import { ArgsError, parseArgs, selectScenarios } from '../../bench/lib/args.js';
import { addRatios, combineRuns, evaluateTargets, formatRun } from '../../bench/lib/report.js';
import type { BenchRun, ScenarioResult } from '../../bench/lib/types.js';

function result(name: string, value: number, extra: Partial<ScenarioResult> = {}): ScenarioResult {
  const unit = name.includes('small') ? 'transfers/s' : 'MB/s';
  return { name, description: '', status: 'ok', unit, value, bytes: 1, files: 1, seconds: 1, processes: [], ...extra };
}

const host = (role: string, mb: number): ScenarioResult['processes'][number] => ({ role, pid: 1, cpuSeconds: 1, peakRssBytes: mb * 1e6 });

describe('bench --only', () => {
  it('selects a group by prefix and adds the baselines the targets need', () => {
    expect(selectScenarios(['raw'])).toEqual(['raw-tcp', 'raw-copy', 'raw-small']);
    expect(selectScenarios(['large'])).toEqual(['raw-copy', 'large', 'large-tls', 'large-digest', 'sha512', 'large-sha512']);
    expect(selectScenarios(['large-sha512'])).toEqual(['sha512', 'large-sha512']);
    expect(selectScenarios(['small-seq'])).toEqual(['raw-small', 'small-seq']);
    expect(selectScenarios(['small-concurrent'])).toEqual(['small-concurrent']);
    expect(selectScenarios(['small'])).toEqual(['raw-small', 'small-seq', 'small-concurrent', 'small-msend']);
    expect(selectScenarios([])).toHaveLength(11);
  });

  it('refuses unknown names and bad sizes with a message naming them', () => {
    expect(() => selectScenarios(['huge'])).toThrow(/unknown scenario huge/);
    expect(() => parseArgs(['--large-mb', 'x'], '/')).toThrow(ArgsError);
    expect(() => parseArgs(['--frob'], '/')).toThrow(/unknown option --frob/);
  });

  it('--quick shrinks the sizes unless given explicitly', () => {
    const quick = parseArgs(['--quick'], '/');
    const mixed = parseArgs(['--quick', '--small-count', '7'], '/');
    expect(quick).toMatchObject({ quick: true, largeBytes: 64 * 1024 * 1024, smallCount: 100, concurrentCount: 200 });
    expect(mixed).toMatchObject({ smallCount: 7, concurrentCount: 200 });
  });

  it('--small-rounds: 3 by default, 1 with --quick, a positive whole number when given', () => {
    expect(parseArgs([], '/')).toMatchObject({ smallRounds: 3, repeat: 1 });
    expect(parseArgs(['--quick'], '/')).toMatchObject({ smallRounds: 1 });
    expect(parseArgs(['--quick', '--small-rounds', '2'], '/')).toMatchObject({ smallRounds: 2 });
    expect(() => parseArgs(['--small-rounds', '0'], '/')).toThrow(/--small-rounds expects a positive integer/);
  });
});

describe('bench targets', () => {
  it('judges ratios against the baseline of the same run, and rates and memory absolutely', () => {
    const results = [
      result('raw-copy', 1000),
      result('large', 700, { processes: [host('client', 120), host('host-b', 90)] }),
      result('large-tls', 300, { processes: [host('client', 260)] }),
      result('raw-small', 500),
      result('small-seq', 160),
      result('small-concurrent', 390, { rssGrowth: [{ role: 'host-b', firstBytes: 100, lastBytes: 105, window: 1000, growth: 0.05 }] }),
    ];
    addRatios(results);
    expect(results[1]?.ratio).toBeCloseTo(0.7);
    const targets = Object.fromEntries(evaluateTargets(results).map((t) => [t.name, t]));
    expect(targets['large-ratio']?.status).toBe('PASS');
    expect(targets['large-tls-ratio']?.status).toBe('MISS');
    expect(targets['large-digest-ratio']).toMatchObject({ status: 'SKIP', reason: 'large-digest not run' });
    expect(targets['small-seq-ratio']).toMatchObject({ status: 'PASS', measured: 0.32 });
    expect(targets['small-seq-rate']?.status).toBe('PASS');
    expect(targets['small-concurrent-rate']?.status).toBe('MISS');
    expect(targets['peak-rss']).toMatchObject({ status: 'MISS', measured: 260e6, reason: 'highest: large-tls client' });
    expect(targets['rss-growth']).toMatchObject({ status: 'PASS', measured: 0.05, reason: 'small-concurrent host-b, windows of 1000' });
  });

  it('small-msend: its wall time (files over the rate) within 1.6 s, the issue\'s 10 x the original', () => {
    const wall = (files: number, rate: number): string | undefined => evaluateTargets([result('small-msend', rate, { files })]).find((t) => t.name === 'small-msend-wall')?.status;
    expect(wall(200, 200)).toBe('PASS');
    expect(wall(200, 125)).toBe('PASS');
    expect(wall(200, 120)).toBe('MISS');
    expect(evaluateTargets([]).find((t) => t.name === 'small-msend-wall')).toMatchObject({ status: 'SKIP', reason: 'small-msend not run' });
  });

  it('RSS growth is judged on the concurrent scenario; the sequential one is only noted', () => {
    const growth = (g: number, window: number): ScenarioResult['rssGrowth'] => [{ role: 'host-b', firstBytes: 100, lastBytes: 100 * (1 + g), window, growth: g }];
    const both = evaluateTargets([result('small-seq', 1, { rssGrowth: growth(0.2, 250) }), result('small-concurrent', 1, { rssGrowth: growth(0.02, 1000) })]);
    expect(both.find((t) => t.name === 'rss-growth')).toMatchObject({ status: 'PASS', measured: 0.02 });
    expect(both.find((t) => t.name === 'rss-growth')?.reason).toContain('small-seq (info) 20.0% host-b, windows of 250');
    const seqOnly = evaluateTargets([result('small-seq', 1, { rssGrowth: growth(0.2, 250) })]);
    expect(seqOnly.find((t) => t.name === 'rss-growth')).toMatchObject({ status: 'SKIP' });
  });

  it('with another digest than SHA-256 the throughput targets are SKIP; the memory ones still count', () => {
    const results = [result('raw-copy', 1000), result('large', 700), result('small-concurrent', 500, { rssGrowth: [{ role: 'host-b', firstBytes: 100, lastBytes: 130, window: 1000, growth: 0.3 }] })];
    addRatios(results);
    const targets = Object.fromEntries(evaluateTargets(results, 'MD5').map((t) => [t.name, t]));
    expect(targets['large-ratio']).toMatchObject({ status: 'SKIP', reason: 'the hosts ran with --digest MD5; the targets assume SHA256' });
    expect(targets['small-concurrent-rate']?.status).toBe('SKIP');
    expect(targets['rss-growth']).toMatchObject({ status: 'MISS', measured: 0.3 });
    expect(evaluateTargets(results, 'SHA256').find((t) => t.name === 'large-ratio')?.status).toBe('PASS');
  });

  it('large-sha512 is judged on its time against SHA-512 alone, whatever --digest says', () => {
    // 1000 MB: SHA-512 alone in 2 s (500 MB/s); the transfer in 2.5 s (400 MB/s) is 1.25 x, in 3 s 1.5 x.
    const within = [result('sha512', 500), result('large-sha512', 400)];
    addRatios(within);
    expect(evaluateTargets(within, 'MD5').find((t) => t.name === 'large-sha512-time')).toMatchObject({ status: 'PASS', rule: 'large-sha512 time <= 1.3 x sha512 time', measured: 1.25 });
    const slow = [result('sha512', 500), result('large-sha512', 1000 / 3)];
    addRatios(slow);
    expect(evaluateTargets(slow).find((t) => t.name === 'large-sha512-time')).toMatchObject({ status: 'MISS' });
    expect(evaluateTargets([result('large-sha512', 400)]).find((t) => t.name === 'large-sha512-time')).toMatchObject({ status: 'SKIP', reason: 'sha512 not run' });
  });

  it('a skipped scenario skips its targets with its reason', () => {
    const results = [result('raw-copy', 1000), { ...result('large', 0), status: 'skipped' as const, reason: 'engine not ready' }];
    addRatios(results);
    const large = evaluateTargets(results).find((t) => t.name === 'large-ratio');
    expect(large).toMatchObject({ status: 'SKIP', reason: 'large skipped: engine not ready' });
  });
});

describe('bench --repeat', () => {
  it('keeps the median value and the median of the per-round ratios, with every round listed', () => {
    const round = (base: number, large: number): ScenarioResult[] => {
      const r = [result('raw-copy', base), result('large', large)];
      addRatios(r);
      return r;
    };
    const rounds = [round(100, 50), round(200, 80), round(150, 90)];
    const [copy, large] = combineRuns([rounds.map((r) => r[0] as ScenarioResult), rounds.map((r) => r[1] as ScenarioResult)]);
    expect(copy).toMatchObject({ value: 150, runs: [100, 200, 150] });
    expect(large).toMatchObject({ value: 80, runs: [50, 80, 90] });
    expect(large?.runRatios).toEqual([0.5, 0.4, 0.6]);
    expect(large?.ratio).toBe(0.5);
  });

  it('a round that did not run makes the scenario not run', () => {
    const failed = { ...result('large', 0), status: 'failed' as const, reason: 'boom' };
    expect(combineRuns([[result('large', 1), failed]])[0]).toMatchObject({ status: 'failed', reason: 'boom' });
  });
});

describe('bench --small-rounds', () => {
  it('combines a scenario run more often than another; memory is the worst run, not the median one', () => {
    const pass = (base: number, seq: number, rssMb: number, growth: number): ScenarioResult[] => {
      const r = [result('raw-small', base), result('small-seq', seq, { processes: [host('host-b', rssMb)], rssGrowth: [{ role: 'host-b', firstBytes: 1, lastBytes: 1, growth, window: 250 }] })];
      addRatios(r);
      return r;
    };
    const passes = [pass(500, 200, 140, 0.01), pass(800, 210, 190, 0.12), pass(600, 150, 150, 0.02)];
    const [copy, large, small, seq] = combineRuns([[result('raw-copy', 300)], [result('large', 600)], passes.map((p) => p[0] as ScenarioResult), passes.map((p) => p[1] as ScenarioResult)]);
    expect(copy).toMatchObject({ value: 300 });
    expect(copy?.runs).toBeUndefined();
    expect(large).toMatchObject({ value: 600 });
    expect(small).toMatchObject({ value: 600, runs: [500, 800, 600] });
    expect(seq).toMatchObject({ value: 200, runs: [200, 210, 150] });
    expect(seq?.runRatios).toEqual([0.4, 0.2625, 0.25]);
    expect(seq?.ratio).toBe(0.2625);
    // The median run (200 /s) peaked at 140 MB and grew 1%; another run reached 190 MB and 12%.
    expect(seq?.processes).toMatchObject([{ role: 'host-b', peakRssBytes: 190e6 }]);
    expect(seq?.rssGrowth).toMatchObject([{ role: 'host-b', growth: 0.12 }]);
  });
});

describe('bench --digest', () => {
  it('takes a digest name of server.xml (any case, SHA-256 or SHA256) and refuses others', () => {
    const digestOf = (...argv: string[]): string => {
      const opts = parseArgs(argv, '/tmp');
      if (opts === 'help') throw new Error('help');
      return opts.digest;
    };
    expect(digestOf()).toBe('SHA256');
    expect(digestOf('--digest', 'md5')).toBe('MD5');
    expect(digestOf('--digest', 'SHA-512')).toBe('SHA512');
    expect(() => digestOf('--digest', 'whirlpool')).toThrow(ArgsError);
    expect(() => digestOf('--digest')).toThrow(/--digest expects one of CRC32, ADLER32, MD5/);
  });
});

describe('bench --monitoring and --compare-monitoring', () => {
  it('--monitoring is every facility, --monitoring=LIST some, in a fixed order; unknown names are refused', () => {
    expect(parseArgs([], '/')).toMatchObject({ monitoring: [], compareMonitoring: false });
    expect(parseArgs(['--monitoring'], '/')).toMatchObject({ monitoring: ['metrics', 'push', 'snmp'] });
    expect(parseArgs(['--monitoring=snmp,push'], '/')).toMatchObject({ monitoring: ['push', 'snmp'] });
    expect(() => parseArgs(['--monitoring=push,graphite'], '/')).toThrow(/--monitoring= expects some of metrics,push,snmp, got push,graphite/);
    expect(() => parseArgs(['--monitoring='], '/')).toThrow(/got nothing/);
  });

  it('--compare-monitoring alone compares with every facility on, or with those chosen, over 12 passes unless told', () => {
    expect(parseArgs(['--compare-monitoring'], '/')).toMatchObject({ compareMonitoring: true, monitoring: ['metrics', 'push', 'snmp'], smallRounds: 12 });
    expect(parseArgs(['--compare-monitoring', '--small-rounds', '4'], '/')).toMatchObject({ smallRounds: 4 });
    expect(parseArgs(['--compare-monitoring', '--quick'], '/')).toMatchObject({ smallRounds: 1 });
    expect(parseArgs(['--compare-monitoring', '--monitoring=metrics'], '/')).toMatchObject({ compareMonitoring: true, monitoring: ['metrics'] });
  });

  it('judges each small scenario with monitoring against the same pass without it, the median of the passes', () => {
    const pass = (seq: number, seqOn: number, conc: number, concOn: number): ScenarioResult[] => {
      const rs = [result('raw-small', 600), result('small-seq', seq), result('small-seq+monitoring', seqOn), result('small-concurrent', conc), result('small-concurrent+monitoring', concOn)];
      addRatios(rs);
      return rs;
    };
    // Without the pairing a slow pass (the second) would make monitoring look free or costly.
    const passes = [pass(200, 190, 500, 400), pass(100, 98, 300, 250), pass(220, 200, 520, 430)];
    expect(passes[0]?.[2]).toMatchObject({ baseline: 'small-seq', ratio: 0.95 });
    expect(passes[0]?.[1]).toMatchObject({ baseline: 'raw-small' });
    const names = ['raw-small', 'small-seq', 'small-seq+monitoring', 'small-concurrent', 'small-concurrent+monitoring'];
    const combined = combineRuns(names.map((_, i) => passes.map((p) => p[i] as ScenarioResult)));
    expect(combined[2]).toMatchObject({ name: 'small-seq+monitoring', value: 190, runRatios: [0.95, 0.98, 200 / 220] });
    const targets = Object.fromEntries(evaluateTargets(combined).map((t) => [t.name, t]));
    expect(targets['small-seq-monitoring']).toMatchObject({ status: 'PASS', rule: 'small-seq with monitoring >= 0.9 x without', measured: 0.95 });
    expect(targets['small-concurrent-monitoring']).toMatchObject({ status: 'MISS', measured: 430 / 520 });
  });

  it('without --compare-monitoring the monitoring targets are SKIP and say how to run them', () => {
    const targets = Object.fromEntries(evaluateTargets([result('small-seq', 200)]).map((t) => [t.name, t]));
    expect(targets['small-seq-monitoring']).toMatchObject({ status: 'SKIP', reason: expect.stringMatching(/--compare-monitoring/) });
  });

  it('memory targets count the hosts with monitoring too', () => {
    const growth = (g: number): ScenarioResult['rssGrowth'] => [{ role: 'host-a', firstBytes: 100, lastBytes: 100 * (1 + g), window: 1000, growth: g }];
    const results = [
      result('small-concurrent', 500, { processes: [host('host-a', 150)], rssGrowth: growth(0.02) }),
      result('small-concurrent+monitoring', 480, { processes: [host('host-a', 251)], rssGrowth: growth(0.12) }),
    ];
    const targets = Object.fromEntries(evaluateTargets(results).map((t) => [t.name, t]));
    expect(targets['peak-rss']).toMatchObject({ status: 'MISS', reason: 'highest: small-concurrent+monitoring host-a' });
    expect(targets['rss-growth']).toMatchObject({ status: 'MISS', measured: 0.12, reason: 'small-concurrent+monitoring host-a, windows of 1000' });
  });
});

describe('bench table', () => {
  it("shows a process's main-thread CPU where its other threads used half a second or more", () => {
    const run: BenchRun = {
      schema: 1, startedAt: 'now', finishedAt: 'now', options: parseArgs([], '/') as BenchRun['options'], targets: [],
      machine: { cores: 2, cpuModel: 'x', memoryBytes: 2 ** 30, node: 'v20', kernel: 'k', disk: { device: 'd', fsType: 'ext4' }, loadAverage: [0, 0, 0], sha256: { mbPerSecond: 1, shaNi: true } } as BenchRun['machine'],
      scenarios: [result('large-sha512', 200, { processes: [
        { role: 'host-b', pid: 1, cpuSeconds: 3.8, mainThreadCpuSeconds: 2.0, peakRssBytes: 1e8 },
        { role: 'client', pid: 2, cpuSeconds: 3.0, mainThreadCpuSeconds: 2.8, peakRssBytes: 1e8 },
      ] })],
    };
    const line = formatRun(run).split('\n').find((l) => l.startsWith('large-sha512')) ?? '';
    expect(line).toContain('host-b 3.8 (main 2.0), client 3.0');
  });
});
