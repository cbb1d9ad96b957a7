//! The Commands cell's statistics against independent references: the
//! signed-rank test against scipy.stats.wilcoxon on fixed data, the unpaired
//! comparison equal to the comparison engine's on the same runs, and the
//! paired verdict's false-difference rate and power by simulation of rounds
//! that share a machine's load.

use rand::{Rng, RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use tickbook_analysis::format::{SamplesFile, Series};
use tickbook_analysis::report::{compare_series_bytes, Options};
use tickbook_analysis::stats::compare::Verdict;
use tickbook_analysis::stats::paired::{wilcoxon, Method};
use tickbook_analysis::suites::commands::{
    commands_report, CommandSpec, CommandsData, RunRecord, ShellSpawn,
};

/// (log ratios, scipy's statistic, scipy's p-value), from
/// `scipy.stats.wilcoxon(d)` (scipy 1.17, defaults) on
/// numpy.random.default_rng(31) normal draws: n = 8, 20, 45 (exact), 60,
/// 120 (normal form), and 30 values rounded to two decimals (ties: normal
/// form with the tie correction).
#[rustfmt::skip]
const SCIPY: &[(&[f64], f64, f64)] = &[
    (&[0.042093974228268605, 0.055278297700314595, 0.062142565375911354, 0.03055680400545595, 0.06535328506279785, 0.055101162435486795, 0.0656595974126018, 0.05544836468144736], 0.0, 0.0078125),
    (&[0.033240162510611355, -0.008755127575337437, 0.045521994676354864, 0.03404779688270575, -0.0019991569691400306, 0.023203326261207125, 0.018895347689750996, -0.024915271312345007, 0.02190432491251327, -0.001707982418105769, 0.0049997293282973134, -0.002047728782220728, 0.0014383198647184361, 0.011434694035249778, 0.011934382481123981, -0.021183036827845593, 0.004625879327012131, -0.016896222948155966, -0.015415557181182092, 0.003060927985383221], 71.0, 0.21616744995117188),
    (&[0.014106005517538201, 0.009617130080660057, -0.015093160948317311, -0.017208416479966702, -0.01954819794165391, -0.00014519561488680497, 0.01573300077559448, -0.002639002859230567, 0.010855333393182325, 0.003308181093026964, 0.02708371329510455, -0.04313381473112342, -0.04562068166387279, -0.00696879155691923, 0.009730790375366307, -0.011210985635168279, 0.005515613600101194, -0.02647089594135912, -0.028187664686716386, -0.017331517737670932, 0.013826454363498962, 0.01092716739308204, -0.01726505424309972, 0.0006223873989194767, -0.015951416709743396, -0.00259880379005313, -0.025285927611815355, -0.003931086950380296, -0.01771507869961922, -0.003887190157140446, -0.016040852120244604, -0.019434829605678505, -0.0007313742425720687, -0.009755907216506227, -0.0025665764843462685, -0.01138170363104074, 0.009274857947446691, -0.019313695060990142, 0.01237502089979145, 0.02363948618889692, -0.008377754129872312, 0.03190486153456063, 0.03759396393731674, 0.005861500060309514, -0.030152102982386967], 367.0, 0.09058088634230899),
    (&[-0.030313878969056317, -0.0015155736839380244, 0.03751859652964442, 0.01349099699931582, 0.017160618389165303, -0.0030182661958089623, -0.012882937456021067, 0.009438422087396012, -0.020175574327511873, -0.0019388877731519394, 0.01222304590994712, 0.0027186830680623244, 0.012491284581225049, -0.00691953190915205, 0.013963596716176892, 0.010093007614019243, -0.030994125218471627, -0.01884525907621415, -0.01246952638091098, 0.015111726281639684, 0.008041603229172103, 0.007659765834911248, 0.005458648692402265, 0.014729529080527218, 0.020906956837132888, -0.0090943236907872, -0.02981824329383953, 0.015346489109059447, -0.0021885840332951994, 0.002976107534612812, -0.0014761052981264264, -0.020251365974615215, -0.02821302629356489, 0.021285603735484493, 0.02386185059650702, 0.020624793275024284, 0.006164692915030184, 0.007370415681425096, -0.0063785934628806246, 0.00336024470398382, -0.006056721596179161, -0.008873723291521697, 0.006104063331227979, 0.03596200884093728, -0.03567082937247087, 0.014030226364783861, 0.0155130251927449, -0.02228812287539334, 0.008268998851959416, 0.004031499266474355, -0.007279654433784909, -0.007926486232435902, -0.026123463762739933, 0.0361435555671451, 0.048951350266590754, 0.0337275178773846, -0.003755865077729857, 0.0077136396226673435, 0.009544162632410303, -0.014258659048014459], 747.0, 0.21618016819552188),
    (&[-0.00517026719199437, 0.010664908171645855, -0.008432458935772533, -0.03519512231659466, -0.025360372972252417, 0.005099767531803341, -0.006741227930473955, -0.005965872236089694, 0.027119557344387438, 0.0016957324592860642, -0.01434872465803279, -0.001299266332178037, 0.0431582164377912, -0.022529272982167593, 0.035738966771907264, 0.02883189981560074, -0.0032019061168793977, -0.006717788142254378, 0.0283761661738276, 0.0048794034582246735, -0.010616659868526857, 0.03645523453515784, 0.0034898475262010297, 0.006642917662263629, 0.000770367993221085, -0.0060262144980858905, 0.0024840039893393663, -0.007401918929072894, 0.010150622258143638, 0.02110907674314077, 0.021703963963440657, 0.023827861963368075, 0.029909372667010367, 0.01522070032733649, -0.012089672515103525, 0.019243110875453957, -0.03298413606351354, -0.014267426963164425, 0.005799373314461855, -0.03364787350753432, 0.029437615628036193, -0.0203469639923987, -0.029956044740375876, -0.015228604282537724, -0.015280191329132385, -0.0005256784979980597, -0.003158692282055383, 0.020621624026924208, -0.0033287852521306717, 0.0035110238711815013, -0.019799582399515476, 0.009944975415494361, -0.015499582278551338, -0.038965856430784866, 0.026076701682251485, -0.021128636095528678, -0.02179403973220636, -0.017533523102257243, 0.013022354431944943, -0.030468519832832865, -0.007962798983884327, 0.011537682638849031, 0.037938789493412076, -0.005793701596593109, 0.0011165301667556144, -0.01734500872575107, 0.03962581178117429, -0.0028113274398027205, -0.0012512610253425332, 0.0029343667459986655, -0.01832255646022209, -0.00020389604403496238, -0.025225182890844904, 0.029776842017759177, -0.002989460797849718, -0.003297291842031793, 0.023363915165570175, -0.024317117696440436, 0.02802512702089964, 0.030445636442067135, -0.01538526407292051, 0.013814950788493681, -0.0019515200196989428, 0.017654096411489885, 0.0008391900781494518, -0.01800337192044221, 0.012562222219107657, -0.004369505786005126, 0.003584889042665498, 0.019528819806332334, 0.02430549303679885, 0.012583923585169163, -0.028422311929980588, 0.01388864377240113, -0.006010031731129559, 0.021444981165383754, -0.003916833467420326, 0.028519971727240828, 0.01028142133809217, 1.3587086971044795e-06, 0.005865453088882964, -0.035279501335051505, 0.011476144563461011, 0.002298818268175798, -0.021935954376096176, 0.008140032454417793, 0.0063851546963530304, 0.007152412485951322, -0.0023078691417756834, 0.015770354116405698, 0.016028923222708873, 0.001871829534795713, -0.001222304035603321, -0.009075919667320177, -0.011901399248769476, 0.012235250371761855, -0.01091798554912801, -0.028244464159335805, 0.004919195401034481, 0.02214832954253535], 3359.0, 0.47788180266778035),
    (&[0.01, 0.04, 0.03, 0.01, 0.03, 0.02, 0.03, -0.04, 0.04, 0.03, 0.01, 0.04, 0.02, 0.02, 0.04, 0.05, 0.02, 0.03, 0.03, 0.01, 0.05, 0.04, 0.02, 0.04, 0.03, 0.01, 0.04, 0.02, 0.03, 0.04], 24.0, 1.5724393871945015e-05),
];

#[test]
fn signed_rank_matches_scipy() {
    for (k, (d, statistic, p)) in SCIPY.iter().enumerate() {
        let t = wilcoxon(d).unwrap();
        assert_eq!(t.statistic, *statistic, "case {k}");
        let exact = d.len() <= 50 && k != 5;
        assert_eq!(
            t.method,
            if exact {
                Method::Exact
            } else {
                Method::Asymptotic
            },
            "case {k}"
        );
        assert!(
            (t.p_value - p).abs() <= 1e-9 * p.max(1e-300) + 1e-15,
            "case {k}: {} vs scipy {p}",
            t.p_value
        );
    }
}

/// Runs of `commands` in rounds: `time(round, command, rng)`.
fn data(
    n: usize,
    rounds: usize,
    seed: u64,
    mut time: impl FnMut(usize, usize, &mut Xoshiro256PlusPlus) -> f64,
) -> CommandsData {
    let mut r = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut runs = Vec::new();
    let mut orders = Vec::new();
    for round in 0..rounds {
        let order: Vec<usize> = if r.random::<bool>() {
            (0..n).collect()
        } else {
            (0..n).rev().collect()
        };
        for (position, &c) in order.iter().enumerate() {
            runs.push(RunRecord {
                command: c,
                round,
                position,
                start_ns: (round * n + position) as f64,
                wall_ns: time(round, c, &mut r),
                user_ns: 0.0,
                sys_ns: 0.0,
                max_rss_kib: 0,
                nivcsw: None,
                nvcsw: None,
                exit_code: Some(0),
                signal: None,
                task_clock_ns: None,
                instructions: None,
                cycles: None,
            });
        }
        orders.push(order);
    }
    CommandsData {
        commands: (0..n)
            .map(|i| CommandSpec {
                name: format!("c{i}"),
                command: format!("cmd {i}"),
                parameters: Default::default(),
            })
            .collect(),
        order: "interleaved".into(),
        seed,
        shell: None,
        shell_spawn: None,
        warmup: 0,
        rounds: orders,
        runs,
        precision: None,
        counters: None,
    }
}

fn normal(r: &mut impl Rng) -> f64 {
    // Box–Muller: the test needs no more.
    let (u, v): (f64, f64) = (r.random(), r.random());
    (-2.0 * (1.0 - u).ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

#[test]
fn unpaired_is_the_comparison_engines() {
    let d = data(3, 25, 5, |_, c, r| {
        1e6 * (1.0 + 0.05 * c as f64) * (1.0 + 0.1 * normal(r)).abs()
    });
    let o = Options::default();
    let (report, _) = commands_report(&d, &o);
    // The same runs as a samples file: one series per command, each run an
    // execution of one measurement.
    let samples = SamplesFile {
        format: "tickbook".into(),
        format_version: "1.0".into(),
        kind: "samples".into(),
        source: None,
        description: None,
        host: None,
        revision: None,
        series: d
            .commands
            .iter()
            .enumerate()
            .map(|(i, c)| Series {
                name: c.name.clone(),
                unit: "ns".into(),
                executions: d
                    .runs
                    .iter()
                    .filter(|x| x.command == i)
                    .map(|x| vec![x.wall_ns])
                    .collect(),
                metadata: serde_json::Value::Null,
                group: None,
            })
            .collect(),
        alternatives: Default::default(),
        warnings: vec![],
    };
    let bytes = serde_json::to_vec(&samples).unwrap();
    let engine = compare_series_bytes("s.json", &bytes, None, &o, false, false).unwrap();
    let g = &engine.groups[0];
    let reference = report.reference.unwrap();
    assert_eq!(g.series[0], report.commands[reference].name);
    assert_eq!(report.comparisons.len(), 2);
    for c in &report.comparisons {
        let k = g
            .series
            .iter()
            .position(|s| *s == report.commands[c.command].name)
            .unwrap();
        let p = &g.against_reference[k - 1];
        let ours = c.unpaired.ratio.as_ref().unwrap();
        let theirs = p.ratio.as_ref().unwrap();
        // The same draws; the means summed in another order differ in the last bit.
        for (x, y) in [
            (ours.estimate, theirs.estimate),
            (ours.lo, theirs.lo),
            (ours.hi, theirs.hi),
        ] {
            assert!((x - y).abs() <= 1e-12 * y.abs(), "{x} vs {y}");
        }
        assert_eq!(c.unpaired.test.unwrap().p_value, p.test.unwrap().p_value);
        assert_eq!(c.unpaired.verdict, p.verdict);
        let speed = g.relative_speed[k - 1].unwrap();
        assert!((c.relative_speed - speed.ratio).abs() < 1e-12);
        assert!((c.relative_speed_error.unwrap() - speed.error.unwrap()).abs() < 1e-12);
    }
}

/// Two commands whose runs share each round's load: a factor common to the
/// round (bursty: most rounds quiet, some 30-60 % slower) and 1 % noise of
/// each run. `diff`: how much slower the second is.
fn loaded(seed: u64, rounds: usize, diff: f64) -> CommandsData {
    let mut load = Vec::new();
    let mut r = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0xabc);
    for _ in 0..rounds {
        let burst = r.random::<f64>() < 0.3;
        load.push(if burst {
            1.3 + 0.3 * r.random::<f64>()
        } else {
            1.0 + 0.02 * normal(&mut r).abs()
        });
    }
    data(2, rounds, seed, |round, c, r| {
        1e6 * load[round] * (1.0 + diff * c as f64) * (1.0 + 0.01 * normal(r))
    })
}

/// Fewer resamples, for simulations of many trials; threshold 0, so that
/// any difference shown counts.
fn simulation_options() -> Options {
    Options {
        bootstrap: tickbook_analysis::stats::bootstrap::BootstrapOptions {
            resamples: 400,
            ..Default::default()
        },
        threshold: 0.0,
        ..Options::default()
    }
}

fn shown(v: Verdict) -> bool {
    matches!(v, Verdict::Different | Verdict::WithinThreshold)
}

#[test]
fn paired_verdict_keeps_its_error_rate_and_finds_two_percent() {
    let o = simulation_options();
    let trials = 200;
    let (mut null_paired, mut found_paired, mut found_unpaired) = (0, 0, 0);
    for t in 0..trials {
        let (a, _) = commands_report(&loaded(t, 30, 0.0), &o);
        null_paired += shown(a.comparisons[0].paired.verdict) as usize;
        let (b, _) = commands_report(&loaded(1000 + t, 30, 0.02), &o);
        found_paired += shown(b.comparisons[0].paired.verdict) as usize;
        found_unpaired += shown(b.comparisons[0].unpaired.verdict) as usize;
    }
    let rate = |k: usize| k as f64 / trials as f64;
    eprintln!(
        "A/A paired false differences {:.3}; 2 %: paired {:.3}, unpaired {:.3}",
        rate(null_paired),
        rate(found_paired),
        rate(found_unpaired)
    );
    // 5 % nominal; 200 trials put 95 % of rates below 0.08.
    assert!(rate(null_paired) <= 0.08, "{}", rate(null_paired));
    assert!(rate(found_paired) >= 0.9, "{}", rate(found_paired));
    assert!(rate(found_unpaired) < rate(found_paired));
}

#[test]
fn cpu_time_pairs_where_waiting_for_a_cpu_swamps_wall_time() {
    // Wall time: 11 ms of work and 0-40 ms waiting for a CPU, a wait no two
    // runs share; CPU time: the work with 1 % noise. The second does 2 % more.
    let mut d = data(2, 30, 3, |_, c, r| {
        1.1e7 * (1.0 + 0.02 * c as f64) * (1.0 + 0.01 * normal(r)) + 4e7 * r.random::<f64>()
    });
    let mut r = Xoshiro256PlusPlus::seed_from_u64(4);
    for x in &mut d.runs {
        x.user_ns = 1.1e7 * (1.0 + 0.02 * x.command as f64) * (1.0 + 0.01 * normal(&mut r));
    }
    let o = Options {
        threshold: 0.0,
        ..Options::default()
    };
    let (report, _) = commands_report(&d, &o);
    let c = &report.comparisons[0];
    let cpu = c.paired_cpu.ratio.as_ref().unwrap();
    assert!(shown(c.paired_cpu.verdict), "{:?}", c.paired_cpu);
    assert!(
        (cpu.estimate.max(1.0 / cpu.estimate) - 1.02).abs() < 0.01,
        "{cpu:?}"
    );
    assert!(
        !shown(c.paired_wall.verdict),
        "the wall time cannot tell: {:?}",
        c.paired_wall.ratio
    );
    // The runs that did not wait spent all their wall time on a CPU, so the
    // primary pairing is the CPU time's.
    assert_eq!(c.measure.time, "cpu", "{:?}", c.measure);
    assert_eq!(c.paired.verdict, c.paired_cpu.verdict);
}

#[test]
fn drift_larger_than_the_difference_is_named() {
    // Both commands slow down 20 % over the run; they differ by 1 %.
    let d = data(2, 40, 9, |round, c, r| {
        1e6 * (1.0 + 0.005 * round as f64) * (1.0 + 0.01 * c as f64) * (1.0 + 0.002 * normal(r))
    });
    let (report, warnings) = commands_report(&d, &Options::default());
    let drift = report.commands[0].drift.as_ref().unwrap();
    assert!(
        (drift.over_run - 0.195 / 1.0975).abs() < 0.02,
        "{}",
        drift.over_run
    );
    assert!(drift.over_run_ci.0 < drift.over_run && drift.over_run < drift.over_run_ci.1);
    assert!(report.comparisons[0].drift_warning.is_some());
    assert!(
        warnings.iter().any(|w| w.contains("drifted")),
        "{warnings:?}"
    );
    // The paired ratio still finds the 1 %.
    let ratio = report.comparisons[0].paired.ratio.as_ref().unwrap();
    assert!(
        (ratio.estimate - 1.01).abs() < 0.002 && ratio.lo > 1.0,
        "{ratio:?}"
    );
}

#[test]
fn a_precision_run_reports_the_confidence_sequence_and_decides_on_it() {
    use tickbook_analysis::stats::sequential::{asymptotic_cs, PrecisionRule};
    let mut d = loaded(3, 40, 0.02);
    let o = Options::default();
    let (fixed, _) = commands_report(&d, &o);
    let rule = PrecisionRule::new(0.01);
    d.precision = Some(rule);
    let (seq, _) = commands_report(&d, &o);
    let (f, s) = (&fixed.comparisons[0].paired, &seq.comparisons[0].paired);
    assert!(!f.sequential && s.sequential);
    // The interval is the sequence's at 40 rounds, from the rounds' ratios.
    let logs: Vec<f64> = s.round_ratios.iter().map(|q| q.ln()).collect();
    let (m, lo, hi) = asymptotic_cs(&logs, 0.05, rule.t_opt).unwrap();
    let ci = s.ratio.as_ref().unwrap();
    assert!((ci.estimate - m.exp()).abs() < 1e-12);
    assert!((ci.lo - lo.exp()).abs() < 1e-12 && (ci.hi - hi.exp()).abs() < 1e-12);
    // Wider than the fixed-sample bootstrap interval, and the verdict
    // follows whether it excludes 1.
    let fci = f.ratio.as_ref().unwrap();
    assert!(ci.hi - ci.lo > fci.hi - fci.lo);
    assert_eq!(
        matches!(s.verdict, Verdict::Different | Verdict::WithinThreshold),
        ci.lo > 1.0 || ci.hi < 1.0
    );
    // Serialised and read back, the rule stays.
    let back: CommandsData = serde_json::from_value(serde_json::to_value(&d).unwrap()).unwrap();
    assert_eq!(back.precision, Some(rule));
}

/// Two CPU-bound commands on a machine whose load comes in bursts, made as
/// measured under `stress-ng --cpu 2` switched on and off on 2 CPUs: each
/// run's CPU time is its work with 2 % noise and, in one run of 20, 15 %
/// more (a cold cache); its wall time is the CPU time plus, in a burst
/// (blocks of rounds, about half of them), a wait for a CPU of 0-300 % of
/// it that no two runs share. The second does `diff` more work.
fn bursty(seed: u64, rounds: usize, diff: f64) -> CommandsData {
    let mut r = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5eed);
    let mut burst = Vec::with_capacity(rounds);
    let mut on = r.random::<bool>();
    for _ in 0..rounds {
        if r.random::<f64>() < 0.05 {
            on = !on;
        }
        burst.push(on);
    }
    let mut d = data(2, rounds, seed, |_, _, _| 0.0);
    for x in &mut d.runs {
        let cold = if r.random::<f64>() < 0.05 { 1.15 } else { 1.0 };
        let cpu = 1e7 * (1.0 + diff * x.command as f64) * cold * (1.0 + 0.02 * normal(&mut r));
        let wait = if burst[x.round] {
            3.0 * r.random::<f64>()
        } else {
            0.005 * normal(&mut r).abs()
        };
        x.user_ns = cpu * 0.97;
        x.sys_ns = cpu * 0.03;
        x.wall_ns = cpu * (1.0 + wait);
    }
    d
}

#[test]
fn primary_paired_comparison_of_cpu_bound_commands_under_bursts() {
    let o = simulation_options();
    let trials = 200;
    let (mut null, mut null_wall, mut found, mut found_wall, mut covered) = (0, 0, 0, 0, 0);
    for t in 0..trials {
        let (a, _) = commands_report(&bursty(t, 150, 0.0), &o);
        let (b, _) = commands_report(&bursty(5000 + t, 150, 0.02), &o);
        let (ca, cb) = (&a.comparisons[0], &b.comparisons[0]);
        assert_eq!(ca.measure.time, "cpu", "{:?}", ca.measure);
        assert_eq!(cb.measure.time, "cpu", "{:?}", cb.measure);
        // The primary is the CPU-time pairing, number for number.
        assert_eq!(cb.paired.round_ratios, cb.paired_cpu.round_ratios);
        assert_eq!(cb.paired.verdict, cb.paired_cpu.verdict);
        assert!(ca.measure.waited_rounds > 0 && ca.measure.waited_rounds < 150);
        null += shown(ca.paired.verdict) as usize;
        null_wall += shown(ca.paired_wall.verdict) as usize;
        found += shown(cb.paired.verdict) as usize;
        found_wall += shown(cb.paired_wall.verdict) as usize;
        // The reference is the lower mean wall time, which the waits may
        // make either.
        let known = if cb.command == 1 { 1.02 } else { 1.0 / 1.02 };
        let q = cb.paired.ratio.as_ref().unwrap();
        covered += (q.lo <= known && known <= q.hi) as usize;
    }
    let rate = |k: usize| k as f64 / trials as f64;
    eprintln!(
        "bursty load, 150 rounds: A/A called different {:.3} (wall {:.3}); 2 % found {:.3} (wall {:.3}); CI covers 1.02 in {:.3}",
        rate(null),
        rate(null_wall),
        rate(found),
        rate(found_wall),
        rate(covered)
    );
    // 5 % nominal (95 % of 200-trial rates below 0.08); power; the 95 %
    // CI's coverage of the known ratio (95 % of rates above 0.91).
    assert!(rate(null) <= 0.08, "{}", rate(null));
    assert!(rate(found) >= 0.9, "{}", rate(found));
    assert!(rate(covered) >= 0.91, "{}", rate(covered));
    assert!(rate(found_wall) < 0.5, "{}", rate(found_wall));
}

#[test]
fn waiting_or_parallel_commands_are_paired_by_wall_time() {
    // A command that sleeps (1 % of its wall time on a CPU), and one on two
    // CPUs (CPU time twice the wall time): CPU time is not their wall time.
    for share in [0.01, 2.0] {
        let mut d = data(2, 30, 8, |_, c, r| {
            1e7 * (1.0 + 0.02 * c as f64) * (1.0 + 0.01 * normal(r))
        });
        for x in &mut d.runs {
            x.user_ns = x.wall_ns * share;
        }
        let (report, _) = commands_report(&d, &Options::default());
        let c = &report.comparisons[0];
        assert_eq!(c.measure.time, "wall", "{share}: {:?}", c.measure);
        assert_eq!(c.paired.round_ratios, c.paired_wall.round_ratios);
        assert!(c.measure.why.starts_with("wall time"), "{}", c.measure.why);
    }
}

#[test]
fn precision_is_decided_on_the_primary_measure() {
    use tickbook_analysis::stats::sequential::PrecisionRule;
    use tickbook_analysis::suites::commands::precision_reached;
    // CPU time reaches ± 2 % at 150 rounds; wall time, waiting in bursts,
    // does not.
    let d = bursty(11, 150, 0.02);
    let rule = PrecisionRule::new(0.02);
    let logs = |f: fn(&RunRecord) -> f64| -> Vec<f64> {
        (0..150)
            .map(|k| {
                let of = |c| {
                    f(d.runs
                        .iter()
                        .find(|x| x.round == k && x.command == c)
                        .unwrap())
                };
                (of(1) / of(0)).ln()
            })
            .collect()
    };
    assert!(rule.reached(&logs(|x| x.user_ns + x.sys_ns), 0.05));
    assert!(!rule.reached(&logs(|x| x.wall_ns), 0.05));
    assert!(precision_reached(&d, &rule, 0.05));
}

#[test]
fn the_shells_start_up_measured_under_load_does_not_hide_a_cpu_bound_command() {
    // 10 ms runs wholly on a CPU, their shell's start-up measured as 6 ms of
    // wall time but 1 ms of CPU: with it subtracted each run's CPU share is
    // (10 − 1) / (10 − 6) = 225 %, which reads as two CPUs; with it added
    // back, 100 %.
    let mut d = data(2, 30, 8, |_, c, r| {
        1e7 * (1.0 + 0.02 * c as f64) * (1.0 + 0.01 * normal(r))
    });
    d.shell = Some("sh".into());
    d.shell_spawn = Some(ShellSpawn {
        runs: 20,
        wall_ns: 6e6,
        user_ns: 1e6,
        sys_ns: 0.0,
        task_clock_ns: None,
        instructions: None,
        cycles: None,
    });
    for x in &mut d.runs {
        x.user_ns = x.wall_ns - 1e6;
        x.sys_ns = 0.0;
        x.wall_ns -= 6e6;
    }
    let (report, _) = commands_report(&d, &Options::default());
    let c = &report.comparisons[0];
    assert_eq!(c.measure.time, "cpu", "{:?}", c.measure);
    let p95 = c.measure.cpu_share_p95.expect("shares");
    assert!((p95 - 1.0).abs() < 1e-9, "{p95}");
}
