//! `docs/tickbook.schema.json` against the format v1 types, the reader, the
//! fixtures and (when available) a real collector output file.
//!
//! Set `TICKBOOK_COLLECTED=/path/to/file.json` to validate a collector output;
//! `target/tickbook-test/fresh.json` is validated too when it exists.
//! `TICKBOOK_COLLECTED_EMULATED` names the aarch64 collection made under
//! qemu-user, checked further (see its test).

use jsonschema::{Draft, Validator};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use tickbook_analysis::format::*;
use tickbook_analysis::read::{read_document, Document};
use tickbook_analysis::suites::SuiteId;
use tickbook_analysis::suites::{
    alloc::*, bernoulli::*, bottleneck::*, clocks::*, copy::*, ops::*, trace::*,
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("analysis/ has a parent")
        .to_path_buf()
}

fn schema_value() -> Value {
    let path = root().join("docs/tickbook.schema.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn validator() -> Validator {
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .should_validate_formats(true)
        .build(&schema_value())
        .expect("the schema compiles")
}

/// All schema errors for `instance`, one per line (empty when valid).
fn schema_errors(v: &Validator, instance: &Value) -> Vec<String> {
    v.iter_errors(instance)
        .map(|e| format!("{}: {}", e.instance_path, e))
        .collect()
}

fn assert_valid(v: &Validator, name: &str, instance: &Value) {
    let errs = schema_errors(v, instance);
    assert!(
        errs.is_empty(),
        "{name} does not validate against the schema:\n  {}",
        errs.join("\n  ")
    );
}

fn assert_invalid(v: &Validator, name: &str, instance: &Value) {
    assert!(
        !v.is_valid(instance),
        "{name} validates against the schema but must not"
    );
}

/// Every property declared in the schema has a `description`.
#[test]
fn schema_compiles_and_documents_every_property() {
    let schema = schema_value();
    jsonschema::meta::validate(&schema).expect("the schema is a valid draft 2020-12 schema");
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    validator();

    fn walk(v: &Value, at: &str, missing: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(Value::Object(props)) = m.get("properties") {
                    for (k, p) in props {
                        if p.get("description").and_then(Value::as_str).is_none()
                            && !at.contains("/if")
                        {
                            missing.push(format!("{at}/properties/{k}"));
                        }
                    }
                }
                for (k, child) in m {
                    walk(child, &format!("{at}/{k}"), missing);
                }
            }
            Value::Array(a) => {
                for (i, child) in a.iter().enumerate() {
                    walk(child, &format!("{at}/{i}"), missing);
                }
            }
            _ => {}
        }
    }
    let mut missing = Vec::new();
    walk(&schema, "#", &mut missing);
    assert!(
        missing.is_empty(),
        "properties without a description: {missing:?}"
    );
}

#[test]
fn samples_fixture_validates() {
    let v = validator();
    let path = root().join("tests/fixtures/samples-3x5.json");
    let bytes = std::fs::read(&path).unwrap();
    let value: Value = serde_json::from_slice(&bytes).unwrap();
    assert_valid(&v, "samples-3x5.json", &value);
    assert!(matches!(
        read_document("samples-3x5.json", &bytes),
        Ok(Document::Samples(_))
    ));
}

#[test]
fn bad_fixtures_are_rejected() {
    let v = validator();
    let bad = root().join("tests/fixtures/bad");
    // Valid JSON, wrong content: the schema must say so.
    for name in ["version2.json", "negative.json"] {
        let bytes = std::fs::read(bad.join(name)).unwrap();
        let value: Value =
            serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{name} should be JSON: {e}"));
        assert_invalid(&v, name, &value);
    }
    // Not JSON at all: no schema can apply.
    for name in ["garbage.json", "truncated.json", "nan.json"] {
        let bytes = std::fs::read(bad.join(name)).unwrap();
        assert!(
            serde_json::from_slice::<Value>(&bytes).is_err(),
            "{name} parses as JSON but should not"
        );
    }
}

/// Every fixture: the reader accepts it exactly when the schema does.
#[test]
fn reader_and_schema_agree_on_fixtures() {
    let v = validator();
    let mut files = Vec::new();
    collect_json(&root().join("tests/fixtures"), &mut files);
    // Other harnesses' files are not tickbook documents: the schema does
    // not describe them (analysis/tests/import.rs covers them, and
    // analysis/tests/fuzz_regressions.rs the inputs the fuzzers found,
    // analysis/tests/compare_tools.rs the pairs compared, and history/ and
    // history-2/ are the history study's measured files of three tools with
    // its truth).
    files.retain(|p| {
        !p.components().any(|c| {
            c.as_os_str() == "import"
                || c.as_os_str() == "fuzz-regressions"
                || c.as_os_str() == "compare"
                || c.as_os_str() == "history"
                || c.as_os_str() == "history-2"
        })
    });
    assert!(files.len() >= 6, "fixtures missing: {files:?}");
    for path in files {
        let name = path.strip_prefix(root()).unwrap().display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let by_schema = match serde_json::from_slice::<Value>(&bytes) {
            Ok(value) => v.is_valid(&value),
            Err(_) => false,
        };
        let by_reader = read_document(&name, &bytes);
        assert_eq!(
            by_schema,
            by_reader.is_ok(),
            "{name}: schema says {}, reader says {:?}",
            if by_schema { "valid" } else { "invalid" },
            by_reader.err().map(|e| e.to_string())
        );
        // Files under bad/ are bad; everything else is a good example.
        let expect_ok = !path.components().any(|c| c.as_os_str() == "bad");
        assert_eq!(by_schema, expect_ok, "{name}");
    }
}

fn collect_json(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect_json(&p, out);
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}

fn full_clocks_data() -> ClocksData {
    ClocksData {
        reference: "tsc_lfence_rdtsc".into(),
        reference_ns_per_unit: 1e9 / 2.4e9,
        tsc_hz: Some(2.4e9),
        tsc_hz_source: Some("cpuid_0x15".into()),
        clocks: vec![
            ClockMeasurement {
                name: "tsc_lfence_rdtsc".into(),
                available: true,
                unavailable_reason: Some("not used when available, but typed".into()),
                unit: "tick".into(),
                ns_per_unit: Some(1e9 / 2.4e9),
                nominal_resolution_ns: Some(1e9 / 2.4e9),
                nominal_resolution_source: Some("1 / tsc_hz".into()),
                read_cost: Some(ReadCost {
                    batch: 64,
                    reference: "tsc_lfence_rdtsc".into(),
                    samples_ns: vec![9.8, 9.9, 10.1, 0.0],
                }),
                scan: Some(ClockScan {
                    reads: 1000,
                    duration_ns: 12_345.5,
                    steps: vec![24, 26, -3, 24],
                    reads_between: vec![0, 0, 1, 0],
                    stopped_by: Some("max_steps".into()),
                }),
            },
            ClockMeasurement {
                name: "CLOCK_MONOTONIC_COARSE".into(),
                available: true,
                unavailable_reason: None,
                unit: "ns".into(),
                ns_per_unit: Some(1.0),
                nominal_resolution_ns: Some(4_000_000.0),
                nominal_resolution_source: Some("clock_getres".into()),
                read_cost: Some(ReadCost {
                    batch: 64,
                    reference: "tsc_lfence_rdtsc".into(),
                    samples_ns: vec![3.1, 3.2],
                }),
                scan: Some(ClockScan {
                    reads: 2_000_000,
                    duration_ns: 8e6,
                    steps: vec![4_000_000, 4_000_000],
                    reads_between: vec![999_999, 999_999],
                    stopped_by: Some("max_duration".into()),
                }),
            },
        ],
        tsc_frequency: vec![
            FrequencySource {
                name: "cpuid_0x15".into(),
                hz: Some(2.4e9),
                error: None,
                detail: json!({"eax": 2, "ebx": 200, "ecx": 24_000_000}),
                windows: vec![],
            },
            FrequencySource {
                name: "cpuid_0x16".into(),
                hz: None,
                error: Some("leaf 0x16 not present".into()),
                detail: Value::Null,
                windows: vec![],
            },
            FrequencySource {
                name: "calibration_monotonic_raw".into(),
                hz: Some(2.400_01e9),
                error: None,
                detail: json!({"windows_ms": [10, 50]}),
                windows: vec![
                    CalibrationWindow {
                        window_ns: 1e7,
                        ticks: 2.4e7,
                        hz: 2.4e9,
                    },
                    CalibrationWindow {
                        window_ns: 5e7,
                        ticks: 1.2e8,
                        hz: 2.4e9,
                    },
                ],
            },
        ],
        cross_cpu: vec![CrossCpuCheck {
            clock: "tsc_lfence_rdtsc".into(),
            unit: "tick".into(),
            cpus: vec![0, 1],
            migrations: 3,
            not_moved: 0,
            backwards: 1,
            min_step: Some(-5),
            ns_per_unit: Some(1e9 / 2.4e9),
            steps: vec![120_000, -5, 98_000],
            note: Some("typed".into()),
        }],
    }
}

fn trials(n: u64, m: u64) -> BernoulliTrials {
    BernoulliTrials {
        n,
        m,
        sum_steps_ns: m as f64 * 4e6,
        planned: n + 10,
        capped: true,
        block_size: 100,
        block_m: vec![m / 2, m - m / 2],
        disturbed_chunks: 2,
        disturbed_n: 40,
        disturbed_m: 3,
        disturbed_sum_steps_ns: 12e6,
        chunks: Some(BernoulliChunks {
            n: vec![n / 2, n - n / 2],
            m: vec![m / 2, m - m / 2],
            steps_ns: vec![(m / 2) * 4_000_000, (m - m / 2) * 4_000_000],
            coarse_ns: vec![8_000_000, 12_000_000],
            wall_ns: vec![9_000_000, 11_000_000],
            cpu_ns: vec![8_900_000, 5_000_000],
            involuntary_switches: Some(vec![0, 1]),
            steal_ns: Some(vec![0, 10_000_000]),
            reference_ns: Some(vec![9_000_100, 11_000_050]),
        }),
    }
}

fn full_bernoulli() -> BernoulliData {
    BernoulliData {
        clock: "CLOCK_MONOTONIC_COARSE".into(),
        tick_ns: 4e6,
        reference: "tsc_lfence_rdtsc".into(),
        epsilon: 0.01,
        confidence: 0.95,
        budget_s: 2.0,
        overhead: trials(200, 1),
        reference_overhead_ns: vec![20.1, 19.9],
        events: vec![BernoulliEvent {
            name: "busy_100ns".into(),
            target_ns: 100.0,
            work_units: 37,
            trials: trials(200, 5),
            reference_ns: vec![101.2, 99.8],
        }],
    }
}

fn full_ops() -> OpsData {
    OpsData {
        portable_clock: "std::time::Instant".into(),
        counter_clock: Some("tsc_lfence_rdtsc".into()),
        counter_hz: Some(2.4e9),
        copies: 1000,
        repetitions: 3,
        core_clock: Some(CoreClock {
            adds: 100_000,
            ticks: vec![41_666.0, 41_670.0],
            ticks_2n: vec![83_310.0, 83_330.0],
        }),
        ops: vec![
            OpMeasurement {
                name: "add_i64".into(),
                group: "integer".into(),
                form: "latency".into(),
                implementation: "asm".into(),
                instruction: Some("add rax, rcx".into()),
                available: true,
                unavailable_reason: None,
                portable_n_ns: vec![420.0, 417.0, 418.0],
                portable_2n_ns: vec![835.0, 833.0, 836.0],
                counter_n_ticks: vec![1000.0, 1001.0, 999.0],
                counter_2n_ticks: vec![2000.0, 2002.0, 1999.0],
            },
            OpMeasurement {
                name: "div_f64".into(),
                group: "float".into(),
                form: "throughput".into(),
                implementation: "portable".into(),
                instruction: None,
                available: false,
                unavailable_reason: Some("not on this architecture".into()),
                portable_n_ns: vec![],
                portable_2n_ns: vec![],
                counter_n_ticks: vec![],
                counter_2n_ticks: vec![],
            },
        ],
        probes: Vec::new(),
    }
}

fn full_copy() -> CopyData {
    CopyData {
        clock: "tsc_lfence_rdtsc".into(),
        copies_per_sample: 10,
        repetitions: 3,
        cache_bytes: vec![
            NamedSize {
                name: "L1d".into(),
                bytes: 49_152,
            },
            NamedSize {
                name: "L2".into(),
                bytes: 2 << 20,
            },
        ],
        cases: vec![
            CopyCase {
                implementation: "rep_movsb".into(),
                variant: 2,
                same_array: false,
                src_offset: 1080,
                dst_offset: 0,
                alignment: 8,
                length: 12_344,
                available: true,
                unavailable_reason: None,
                samples_ns: vec![210.5, 209.9, 211.0],
                copies_per_sample: Some(1),
            },
            CopyCase {
                implementation: "std_copy_nonoverlapping".into(),
                variant: 8,
                same_array: true,
                src_offset: 1087,
                dst_offset: 1087,
                alignment: 1,
                length: 12_351,
                available: false,
                unavailable_reason: Some("source and destination overlap".into()),
                samples_ns: vec![],
                copies_per_sample: None,
            },
        ],
    }
}

fn full_alloc() -> AllocData {
    AllocData {
        executions_per_config: 2,
        measurements_per_execution: 3,
        colours: Some(32),
        colour_cache: Some(Cache {
            level: 2,
            kind: "Unified".into(),
            size_bytes: Some(2 << 20),
            ways: Some(16),
            line_bytes: Some(64),
            sets: Some(2048),
            shared_cpu_list: Some("0".into()),
        }),
        schedule_seed: (1 << 53) - 1,
        configs: vec![
            AllocConfig {
                workload: "fft".into(),
                size_factor: 0.5,
                cache: "L2".into(),
                working_set_bytes: 1 << 20,
                strategy: "page_colouring".into(),
                allocator: "system".into(),
                available: true,
                unavailable_reason: None,
                unit: "ns".into(),
                executions: vec![
                    AllocExecution {
                        order: 0,
                        ok: true,
                        error: None,
                        env_padding_bytes: 1234,
                        measurements: vec![1.5e6, 1.49e6, 1.51e6],
                        colour_histogram: vec![8; 32],
                        colour_misses: Some(1),
                        huge_page_bytes: Some(0),
                    },
                    AllocExecution {
                        order: 1,
                        ok: false,
                        error: Some("killed by signal 9; stderr: ".into()),
                        env_padding_bytes: 0,
                        measurements: vec![],
                        colour_histogram: vec![],
                        colour_misses: None,
                        huge_page_bytes: None,
                    },
                ],
            },
            AllocConfig {
                workload: "stream".into(),
                size_factor: 2.0,
                cache: "L2".into(),
                working_set_bytes: 4 << 20,
                strategy: "thp_madvise".into(),
                allocator: "jemalloc".into(),
                available: false,
                unavailable_reason: Some("jemalloc is not compiled into this build".into()),
                unit: "ns".into(),
                executions: vec![],
            },
        ],
    }
}

/// A run file with every field, including every `Option`, populated.
fn full_run() -> RunFile {
    RunFile {
        format: FORMAT_TAG.into(),
        format_version: FORMAT_VERSION.into(),
        kind: KIND_RUN.into(),
        tool: Tool {
            name: "tickbook".into(),
            version: "0.1.0".into(),
        },
        started_at: "2025-11-21T12:00:00.123456Z".into(),
        ended_at: Some("2025-11-21T12:00:03Z".into()),
        status: "complete".into(),
        command_line: vec![
            "tickbook".into(),
            "collect".into(),
            "clocks".into(),
            "--quick".into(),
        ],
        host: Host {
            hostname: "bench-01".into(),
            os: "linux".into(),
            arch: "x86_64".into(),
            kernel: Some("6.8.0-49-generic".into()),
            cpu: Cpu {
                vendor: Some("GenuineIntel".into()),
                model_name: Some("Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz".into()),
                family: Some(6),
                model: Some(106),
                stepping: Some(6),
                flags: vec!["tsc".into(), "constant_tsc".into(), "rdtscp".into()],
                logical_cpus: Some(2),
                online: Some("0-1".into()),
            },
            caches: vec![
                Cache {
                    level: 1,
                    kind: "Data".into(),
                    size_bytes: Some(49_152),
                    ways: Some(12),
                    line_bytes: Some(64),
                    sets: Some(64),
                    shared_cpu_list: Some("0-1".into()),
                },
                Cache {
                    level: 3,
                    kind: "Unified".into(),
                    size_bytes: Some(u64::MAX),
                    ways: Some(u32::MAX),
                    line_bytes: Some(64),
                    sets: Some(57_344),
                    shared_cpu_list: Some("0-1".into()),
                },
            ],
            hypervisor: Some("KVMKVMKVM".into()),
            clocksource: Some("kvm-clock".into()),
            available_clocksources: vec!["kvm-clock".into(), "tsc".into(), "acpi_pm".into()],
            thp: Some("madvise".into()),
            cpu_governor: Some("performance".into()),
            memory_bytes: Some(8 << 30),
            page_size: Some(4096),
            is_root: Some(false),
            perf_event_paranoid: Some(-1),
            notes: vec!["cpu_governor: no cpufreq directory".into()],
        },
        campaign: Some(Campaign {
            name: "fleet".into(),
            task: 4,
            node: "n2".into(),
            execution: 1,
            executions: 3,
            slurm: Some(SlurmJob {
                job_id: Some(u64::MAX),
                array_job_id: Some(17),
                array_task_id: Some(4),
                cluster: Some("c".into()),
                partition: Some("debug".into()),
                account: Some("acct".into()),
                cpus_on_node: Some(1),
            }),
            cpus: Some(CpuPinning {
                allowed: Some("0-1".into()),
                allocated: Some("0".into()),
                pinned: Some("0".into()),
                how: "allocated".into(),
                note: Some("unused but typed".into()),
            }),
        }),
        environment: Some(full_environment()),
        revision: Some(Revision {
            commit: Some("0123456789abcdef0123456789abcdef01234567".into()),
            branch: Some("main".into()),
            dirty: Some(true),
            date: Some("2025-11-20T09:30:00+01:00".into()),
        }),
        suites: vec![
            Suite {
                suite: "clocks".into(),
                status: "complete".into(),
                error: Some("unused but typed".into()),
                started_at: "2025-11-21T12:00:00.2Z".into(),
                ended_at: "2025-11-21T12:00:02.9+00:00".into(),
                config: json!({"quick": true, "batch": 64, "scan_max_steps": 1000}),
                fallbacks: vec!["tsc_rdtscp: rdtscp flag absent".into()],
                data: serde_json::to_value(full_clocks_data()).unwrap(),
            },
            Suite {
                suite: "clocks".into(),
                status: "failed".into(),
                error: Some("interrupted by SIGINT".into()),
                started_at: "2025-11-21T12:00:03Z".into(),
                ended_at: "2025-11-21T12:00:03Z".into(),
                config: Value::Null,
                fallbacks: vec![],
                data: Value::Null,
            },
            Suite {
                suite: "bernoulli".into(),
                status: "complete".into(),
                error: None,
                started_at: "2025-11-21T12:00:03Z".into(),
                ended_at: "2025-11-21T12:00:03Z".into(),
                config: json!({}),
                fallbacks: vec![],
                data: serde_json::to_value(full_bernoulli()).unwrap(),
            },
            Suite {
                suite: "ops".into(),
                status: "complete".into(),
                error: None,
                started_at: "2025-11-21T12:00:03Z".into(),
                ended_at: "2025-11-21T12:00:03Z".into(),
                config: json!({}),
                fallbacks: vec![],
                data: serde_json::to_value(full_ops()).unwrap(),
            },
            Suite {
                suite: "from_a_newer_minor".into(),
                status: "complete".into(),
                error: None,
                started_at: "2025-11-21T12:00:03Z".into(),
                ended_at: "2025-11-21T12:00:03Z".into(),
                config: json!({}),
                fallbacks: vec![],
                data: json!({"anything": [1, "two", null]}),
            },
            Suite {
                suite: "copy".into(),
                status: "complete".into(),
                error: None,
                started_at: "2025-11-21T12:00:03Z".into(),
                ended_at: "2025-11-21T12:00:03Z".into(),
                config: json!({"quick": true}),
                fallbacks: vec![],
                data: serde_json::to_value(full_copy()).unwrap(),
            },
            Suite {
                suite: "alloc".into(),
                status: "complete".into(),
                error: None,
                started_at: "2025-11-21T12:00:03Z".into(),
                ended_at: "2025-11-21T12:00:03Z".into(),
                config: json!({"quick": true}),
                fallbacks: vec![],
                data: serde_json::to_value(full_alloc()).unwrap(),
            },
        ],
    }
}

fn full_environment() -> Environment {
    let cpu = |cpu, interrupts| CpuTimes {
        cpu,
        user: 10,
        nice: 1,
        system: 2,
        idle: 300,
        iowait: 0,
        irq: 0,
        softirq: 1,
        steal: u64::MAX,
        interrupts,
    };
    Environment {
        user_hz: Some(100),
        checks: vec![
            EnvCheck {
                name: "aslr".into(),
                value: Some("2".into()),
                quiet: Some(false),
                meaning: "2 (on)".into(),
                change: Some("sysctl -w kernel.randomize_va_space=0".into()),
                not_readable: None,
            },
            EnvCheck {
                name: "cpu_governor".into(),
                value: None,
                quiet: None,
                meaning: "the governor".into(),
                change: None,
                not_readable: Some("no cpufreq".into()),
            },
        ],
        samples: vec![EnvSample {
            at: "start".into(),
            monotonic_ns: 12,
            counter: Some(u64::MAX),
            counter_ticks_per_cycle: Some(0.7),
            cpu: Some(1),
            cpus: vec![cpu(0, Some(5)), cpu(1, None)],
            process: Some(ProcessUsage {
                user_us: 1,
                system_us: 2,
                voluntary_switches: 3,
                involuntary_switches: 4,
            }),
            thread: Some(ThreadSched {
                run_ns: 5,
                wait_ns: 6,
                timeslices: 7,
            }),
        }],
        notes: vec!["interrupts unknown".into()],
    }
}

/// The same run with every `Option` `None`, every defaulted `Vec` empty and
/// every defaulted `Value` null.
fn minimal_run() -> RunFile {
    let mut run = full_run();
    run.ended_at = None;
    run.status = "in_progress".into();
    run.campaign = None;
    run.environment = None;
    run.host = Host {
        hostname: "h".into(),
        os: "linux".into(),
        arch: "aarch64".into(),
        ..Host::default()
    };
    run.host.caches = vec![Cache {
        level: 2,
        kind: "Unified".into(),
        ..Cache::default()
    }];
    let data = ClocksData {
        reference: "CLOCK_MONOTONIC_RAW".into(),
        reference_ns_per_unit: 1.0,
        tsc_hz: None,
        tsc_hz_source: None,
        cross_cpu: vec![],
        clocks: vec![ClockMeasurement {
            name: "cntvct_el0".into(),
            available: false,
            unavailable_reason: None,
            unit: String::new(),
            ns_per_unit: None,
            nominal_resolution_ns: None,
            nominal_resolution_source: None,
            read_cost: None,
            scan: Some(ClockScan {
                reads: 0,
                duration_ns: 0.0,
                steps: vec![],
                reads_between: vec![],
                stopped_by: None,
            }),
        }],
        tsc_frequency: vec![FrequencySource {
            name: "cntfrq_el0".into(),
            hz: None,
            error: None,
            detail: Value::Null,
            windows: vec![],
        }],
    };
    run.suites = vec![Suite {
        suite: "clocks".into(),
        status: "complete".into(),
        error: None,
        started_at: "2025-11-21T12:00:00Z".into(),
        ended_at: "2025-11-21T12:00:01Z".into(),
        config: Value::Null,
        fallbacks: vec![],
        data: serde_json::to_value(data).unwrap(),
    }];
    let mut copy = full_copy();
    copy.cache_bytes = vec![];
    for c in &mut copy.cases {
        c.unavailable_reason = None;
        c.samples_ns = vec![];
        c.copies_per_sample = None;
    }
    let mut alloc = full_alloc();
    alloc.colours = None;
    alloc.colour_cache = None;
    for c in &mut alloc.configs {
        c.unavailable_reason = None;
        for e in &mut c.executions {
            e.error = None;
            e.measurements = vec![];
            e.colour_histogram = vec![];
            e.colour_misses = None;
            e.huge_page_bytes = None;
        }
    }
    for (name, data) in [
        ("copy", serde_json::to_value(copy).unwrap()),
        ("alloc", serde_json::to_value(alloc).unwrap()),
    ] {
        run.suites.push(Suite {
            suite: name.into(),
            status: "complete".into(),
            error: None,
            started_at: "2025-11-21T12:00:01Z".into(),
            ended_at: "2025-11-21T12:00:02Z".into(),
            config: Value::Null,
            fallbacks: vec![],
            data,
        });
    }
    run
}

/// Set every `null` member of every object to absent (serde's `default`
/// makes both acceptable).
fn drop_nulls(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, x| !x.is_null());
            m.values_mut().for_each(drop_nulls);
        }
        Value::Array(a) => a.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}

fn check_run_both_ways(v: &Validator, name: &str, run: &RunFile) {
    let value = serde_json::to_value(run).unwrap();
    assert_valid(v, name, &value);
    let bytes = serde_json::to_vec_pretty(&value).unwrap();
    match read_document(name, &bytes) {
        Ok(Document::Run(doc)) => assert_eq!(&doc.run, run, "{name}: round trip"),
        other => panic!("{name}: the reader gives {other:?}"),
    }

    let mut absent = value.clone();
    drop_nulls(&mut absent);
    let name = format!("{name} (nulls as absent)");
    assert_valid(v, &name, &absent);
    let bytes = serde_json::to_vec(&absent).unwrap();
    assert!(
        read_document(&name, &bytes).is_ok(),
        "{name}: {:?}",
        read_document(&name, &bytes).err()
    );
}

#[test]
fn full_run_validates() {
    let v = validator();
    let run = full_run();
    check_run_both_ways(&v, "full run", &run);
    let value = serde_json::to_value(&run).unwrap();
    // The full run really populates everything the types have.
    for key in [
        "ended_at",
        "revision.dirty",
        "host.kernel",
        "host.hypervisor",
        "host.perf_event_paranoid",
        "suites.5.data.cases.0.copies_per_sample",
        "suites.5.data.cases.1.unavailable_reason",
        "suites.6.data.colours",
        "suites.6.data.colour_cache",
        "suites.6.data.configs.0.executions.0.colour_misses",
        "suites.6.data.configs.0.executions.0.huge_page_bytes",
        "suites.6.data.configs.0.executions.1.error",
        "suites.6.data.configs.1.unavailable_reason",
    ] {
        let mut at = &value;
        for k in key.split('.') {
            at = match k.parse::<usize>() {
                Ok(i) => &at[i],
                Err(_) => &at[k],
            };
        }
        assert!(!at.is_null(), "{key} should be populated");
    }
}

#[test]
fn minimal_run_validates() {
    let v = validator();
    check_run_both_ways(&v, "minimal run", &minimal_run());
    // Option fields written as explicit nulls are accepted too (not only absent).
    let mut value = serde_json::to_value(minimal_run()).unwrap();
    value["ended_at"] = Value::Null;
    value["suites"][0]["error"] = Value::Null;
    value["suites"][0]["data"]["clocks"][0]["unavailable_reason"] = Value::Null;
    assert_valid(&v, "minimal run with explicit nulls", &value);
    assert!(read_document("x.json", value.to_string().as_bytes()).is_ok());
}

/// A named change to a valid document.
type Mutation = (&'static str, fn(&mut Value));

/// Each mutation of a valid document must be rejected by the schema and by
/// the reader.
#[test]
fn mutations_are_rejected() {
    let v = validator();
    let samples: Value = serde_json::from_slice(
        &std::fs::read(root().join("tests/fixtures/samples-3x5.json")).unwrap(),
    )
    .unwrap();
    let run = serde_json::to_value(full_run()).unwrap();

    let on_both: [Mutation; 9] = [
        ("format \"x\"", |d| d["format"] = json!("x")),
        ("no format", |d| {
            d.as_object_mut().unwrap().remove("format");
        }),
        ("format_version \"2.0\"", |d| {
            d["format_version"] = json!("2.0")
        }),
        ("format_version 1 (a number)", |d| {
            d["format_version"] = json!(1)
        }),
        ("format_version \"one\"", |d| {
            d["format_version"] = json!("one")
        }),
        ("kind \"y\"", |d| d["kind"] = json!("y")),
        ("no kind", |d| {
            d.as_object_mut().unwrap().remove("kind");
        }),
        ("kind 3", |d| d["kind"] = json!(3)),
        ("top level an array", |d| *d = json!([d.clone()])),
    ];
    let on_samples: [Mutation; 8] = [
        ("negative sample", |d| {
            d["series"][0]["executions"][1][2] = json!(-0.5)
        }),
        ("string sample", |d| {
            d["series"][0]["executions"][1][2] = json!("12.5")
        }),
        ("empty execution", |d| {
            d["series"][1]["executions"][0] = json!([])
        }),
        ("no executions", |d| {
            d["series"][1]["executions"] = json!([])
        }),
        ("no series", |d| d["series"] = json!([])),
        ("blank name", |d| d["series"][0]["name"] = json!("  ")),
        ("no unit", |d| {
            d["series"][0].as_object_mut().unwrap().remove("unit");
        }),
        ("execution not an array", |d| {
            d["series"][0]["executions"][0] = json!(12.5)
        }),
    ];
    let on_run: [Mutation; 17] = [
        ("copy negative sample", |d| {
            d["suites"][5]["data"]["cases"][0]["samples_ns"][1] = json!(-3.0)
        }),
        ("copy variant a string", |d| {
            d["suites"][5]["data"]["cases"][0]["variant"] = json!("2")
        }),
        ("alloc negative measurement", |d| {
            d["suites"][6]["data"]["configs"][0]["executions"][0]["measurements"][0] = json!(-1.5e6)
        }),
        ("alloc ok a string", |d| {
            d["suites"][6]["data"]["configs"][0]["executions"][0]["ok"] = json!("true")
        }),
        ("clocks steps as strings", |d| {
            d["suites"][0]["data"]["clocks"][0]["scan"]["steps"] = json!(["24", "26", "-3", "24"])
        }),
        ("clocks negative read cost", |d| {
            d["suites"][0]["data"]["clocks"][1]["read_cost"]["samples_ns"][0] = json!(-1.0)
        }),
        ("clocks reference_ns_per_unit 0", |d| {
            d["suites"][0]["data"]["reference_ns_per_unit"] = json!(0)
        }),
        ("clocks ns_per_unit negative", |d| {
            d["suites"][0]["data"]["clocks"][0]["ns_per_unit"] = json!(-1)
        }),
        ("clocks data not an object", |d| {
            d["suites"][0]["data"] = json!("oops")
        }),
        ("clocks without clocks list", |d| {
            d["suites"][0]["data"]
                .as_object_mut()
                .unwrap()
                .remove("clocks");
        }),
        ("reads_between negative", |d| {
            d["suites"][0]["data"]["clocks"][0]["scan"]["reads_between"][0] = json!(-1)
        }),
        ("host without hostname", |d| {
            d["host"].as_object_mut().unwrap().remove("hostname");
        }),
        ("host.cpu null", |d| d["host"]["cpu"] = Value::Null),
        ("memory_bytes a string", |d| {
            d["host"]["memory_bytes"] = json!("8G")
        }),
        ("campaign task negative", |d| {
            d["campaign"]["task"] = json!(-1)
        }),
        ("campaign without node", |d| {
            d["campaign"].as_object_mut().unwrap().remove("node");
        }),
        ("campaign job id a string", |d| {
            d["campaign"]["slurm"]["job_id"] = json!("12")
        }),
    ];

    let mut cases: Vec<(String, Value)> = Vec::new();
    for (base_name, base) in [("samples", &samples), ("run", &run)] {
        for (what, f) in &on_both {
            let mut d = base.clone();
            f(&mut d);
            cases.push((format!("{base_name}: {what}"), d));
        }
    }
    for (what, f) in &on_samples {
        let mut d = samples.clone();
        f(&mut d);
        cases.push((format!("samples: {what}"), d));
    }
    for (what, f) in &on_run {
        let mut d = run.clone();
        f(&mut d);
        cases.push((format!("run: {what}"), d));
    }
    for (name, d) in &cases {
        assert_invalid(&v, name, d);
        let e = read_document("m.json", d.to_string().as_bytes());
        assert!(e.is_err(), "{name}: the reader accepts it");
    }
    // The untouched bases are fine (so the rejections above are the mutations').
    assert_valid(&v, "samples", &samples);
    assert_valid(&v, "run", &run);
}

/// Checks the schema makes beyond the reader: enumerated statuses and
/// RFC 3339 timestamps. The reader tolerates these (it only needs to show the
/// file); a collector must not write them.
#[test]
fn schema_is_stricter_than_the_reader_on_enums_and_timestamps() {
    let v = validator();
    let run = serde_json::to_value(full_run()).unwrap();
    let cases: [Mutation; 5] = [
        ("run status \"done\"", |d| d["status"] = json!("done")),
        ("suite status \"ok\"", |d| {
            d["suites"][4]["status"] = json!("ok")
        }),
        ("started_at not RFC 3339", |d| {
            d["started_at"] = json!("2025-11-21 12:00:00")
        }),
        ("format_version \"1\"", |d| d["format_version"] = json!("1")),
        ("campaign pinning \"maybe\"", |d| {
            d["campaign"]["cpus"]["how"] = json!("maybe")
        }),
    ];
    for (name, f) in cases {
        let mut d = run.clone();
        f(&mut d);
        assert_invalid(&v, name, &d);
        assert!(
            read_document(name, d.to_string().as_bytes()).is_ok(),
            "{name}"
        );
    }
}

/// A real collector output: `$TICKBOOK_COLLECTED`, and
/// `target/tickbook-test/fresh.json` when it exists.
#[test]
fn collected_file_validates() {
    let mut paths = Vec::new();
    if let Some(p) = std::env::var_os("TICKBOOK_COLLECTED") {
        let p = PathBuf::from(p);
        assert!(
            p.is_file(),
            "TICKBOOK_COLLECTED={} is not a file",
            p.display()
        );
        paths.push(p);
    }
    let fresh = root().join("target/tickbook-test/fresh.json");
    if fresh.is_file() {
        paths.push(fresh);
    }
    if paths.is_empty() {
        eprintln!("no collector output to validate (set TICKBOOK_COLLECTED)");
        return;
    }
    let v = validator();
    for path in paths {
        validate_collected(&v, &path);
    }
}

/// A file `tickbook run` wrote (the fixture) validates, reads, and its
/// types keep every field.
#[test]
fn commands_fixture_validates() {
    let v = validator();
    let value = validate_collected(&v, &root().join("tests/fixtures/run-commands.json"));
    assert_eq!(value["suites"][0]["suite"], "commands");
}

/// A collector output validates, reads, and loses nothing to the types;
/// returns it as JSON.
fn validate_collected(v: &Validator, path: &Path) -> Value {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let value: Value =
        serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{name}: not JSON: {e}"));
    assert_valid(v, &name, &value);
    match read_document(&name, &bytes) {
        Ok(Document::Run(doc)) => {
            assert_eq!(doc.run.format_version, FORMAT_VERSION, "{name}");
            let ran_clocks = doc
                .run
                .suites
                .iter()
                .any(|s| s.suite == "clocks" && s.status == "complete");
            assert_eq!(doc.clocks.is_some(), ran_clocks, "{name}");
            // Typed round trip: nothing the collector wrote is lost by the types
            // (unknown fields aside, which the schema allows but the types should name).
            let again = serde_json::to_value(&doc.run).unwrap();
            let lost: Vec<String> = lost_fields(&value, &again, "")
                .into_iter()
                .filter(|p| !is_known_extension(p))
                .collect();
            assert!(
                lost.is_empty(),
                "{name}: fields not in the types (readers ignore them; add them to format.rs \
                 or the suite's data.rs, and docs/format.md, or to KNOWN_EXTENSIONS with a line in the docs): {lost:?}"
            );
        }
        Ok(Document::Samples(_)) => {}
        Err(e) => panic!("the reader rejects {name}: {e}"),
    }
    value
}

/// The aarch64 collection scripts/test runs under qemu-user
/// (`$TICKBOOK_COLLECTED_EMULATED`): it validates and reads like any
/// collection, every suite ran to the end, and every suite says first that
/// it was emulated. The ops suite timed A64 sequences and names what A64
/// lacks; the bottleneck suite ran its A64 kernels.
#[test]
fn emulated_aarch64_collection_validates_and_says_so() {
    let Some(p) = std::env::var_os("TICKBOOK_COLLECTED_EMULATED") else {
        eprintln!("no emulated collection to check (set TICKBOOK_COLLECTED_EMULATED)");
        return;
    };
    let path = PathBuf::from(p);
    assert!(
        path.is_file(),
        "TICKBOOK_COLLECTED_EMULATED={} is not a file",
        path.display()
    );
    let run = validate_collected(&validator(), &path);
    assert_eq!(run["host"]["arch"], "aarch64");
    let emulated = |s: &Value| s.as_str().is_some_and(|s| s.starts_with("emulated: "));
    let notes = run["host"]["notes"].as_array().expect("host notes");
    assert!(
        notes.iter().any(emulated),
        "the host notes name the emulation: {notes:?}"
    );
    let suites = run["suites"].as_array().expect("suites");
    let names: Vec<&str> = suites.iter().filter_map(|s| s["suite"].as_str()).collect();
    assert_eq!(names, ["clocks", "bernoulli", "ops", "copy", "bottleneck"]);
    for s in suites {
        let name = &s["suite"];
        assert_eq!(s["status"], "complete", "{name}: {}", s["error"]);
        assert!(
            emulated(&s["fallbacks"][0]),
            "{name}: first fallback {}",
            s["fallbacks"][0]
        );
    }
    let suite = |n: &str| suites.iter().find(|s| s["suite"] == n).expect(n);
    let ops = suite("ops")["data"]["ops"].as_array().expect("ops");
    let op = |name: &str, form: &str| {
        ops.iter()
            .find(|o| o["name"] == name && o["form"] == form)
            .unwrap_or_else(|| panic!("{name} ({form}) is in the table"))
    };
    for form in ["latency", "throughput"] {
        let add = op("add_i64", form);
        assert_eq!(add["implementation"], "asm");
        assert_eq!(add["available"], true);
        assert_eq!(
            add["instruction"].as_str().map(|i| i.starts_with("add ")),
            Some(true)
        );
        let pdep = op("pdep_i64", form);
        assert_eq!(pdep["available"], false);
        assert!(pdep["unavailable_reason"]
            .as_str()
            .is_some_and(|r| r.contains("A64")));
    }
    assert_eq!(op("div_u64", "latency")["instruction"], "udiv x0, x0, x1");
    let bottleneck = suite("bottleneck");
    assert_eq!(
        bottleneck["config"]["kernels"],
        "asm (aarch64, A64 scalar double)"
    );
}

/// Fields the collector writes that the types do not (yet) name; listed in
/// docs/format.md, "Collector extensions". Paths with indices replaced by `[]`.
const KNOWN_EXTENSIONS: &[&str] = &[];

fn is_known_extension(path: &str) -> bool {
    let mut generic = String::new();
    let mut in_index = false;
    for c in path.chars() {
        match c {
            '[' => {
                in_index = true;
                generic.push('[');
            }
            ']' => {
                in_index = false;
                generic.push(']');
            }
            _ if in_index => {}
            _ => generic.push(c),
        }
    }
    KNOWN_EXTENSIONS.contains(&generic.as_str())
}

/// A suite's `data` through its type and back (`None` for a suite this
/// build does not type, or when it does not parse).
fn retype_data(suite: Option<&Value>, data: &Value) -> Option<Value> {
    tickbook_analysis::suites::typed_round_trip(suite?.as_str()?, data)
}

/// Object keys present in `written` but not in `typed` (what the types drop).
/// Inside `data`, an untyped `Value`, the data of the suites this build knows
/// is re-typed so its unknown keys are found too (`config` stays free-form).
fn lost_fields(written: &Value, typed: &Value, at: &str) -> Vec<String> {
    let mut out = Vec::new();
    match (written, typed) {
        (Value::Object(w), Value::Object(t)) => {
            for (k, wv) in w {
                let here = format!("{at}.{k}");
                match t.get(k) {
                    None if !wv.is_null() => out.push(here),
                    None => {}
                    Some(tv) if k == "data" => match retype_data(w.get("suite"), tv) {
                        Some(retyped) => out.extend(lost_fields(wv, &retyped, &here)),
                        None => out.extend(lost_fields(wv, tv, &here)),
                    },
                    Some(tv) => out.extend(lost_fields(wv, tv, &here)),
                }
            }
        }
        (Value::Array(w), Value::Array(t)) => {
            for (i, (wv, tv)) in w.iter().zip(t).enumerate() {
                out.extend(lost_fields(wv, tv, &format!("{at}[{i}]")));
            }
        }
        _ => {}
    }
    out
}

#[test]
fn lost_fields_finds_what_the_types_drop() {
    let mut written = serde_json::to_value(full_run()).unwrap();
    written["host"]["new_knob"] = json!(1);
    written["suites"][0]["data"]["clocks"][1]["scan"]["new_stat"] = json!([1]);
    written["suites"][0]["data"]["new_extension"] = json!([]);
    written["suites"][5]["data"]["cases"][1]["new_case_stat"] = json!(2);
    written["suites"][6]["data"]["configs"][0]["executions"][0]["new_exec_stat"] = json!(3);
    let doc = match read_document("x.json", written.to_string().as_bytes()) {
        Ok(Document::Run(doc)) => doc,
        other => panic!("{other:?}"),
    };
    let typed = serde_json::to_value(&doc.run).unwrap();
    let mut lost = lost_fields(&written, &typed, "");
    lost.sort();
    assert_eq!(
        lost,
        [
            ".host.new_knob",
            ".suites[0].data.clocks[1].scan.new_stat",
            ".suites[0].data.new_extension",
            ".suites[5].data.cases[1].new_case_stat",
            ".suites[6].data.configs[0].executions[0].new_exec_stat"
        ]
    );
    let unknown: Vec<_> = lost.iter().filter(|p| !is_known_extension(p)).collect();
    assert_eq!(unknown.len(), 5, "{unknown:?}");
}

/// The samples example in docs/format.md is a valid file, 3 executions × 5.
#[test]
fn docs_samples_example_validates() {
    let doc = std::fs::read_to_string(root().join("docs/format.md")).unwrap();
    let section = doc
        .split("## The samples kind")
        .nth(1)
        .expect("docs/format.md has a \"The samples kind\" section");
    let example = section
        .split("```json\n")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("the section has a ```json example");
    let value: Value = serde_json::from_str(example).expect("the example is JSON");
    assert_valid(&validator(), "docs/format.md samples example", &value);
    match read_document("format.md example", example.as_bytes()) {
        Ok(Document::Samples(s)) => {
            let shape: Vec<usize> = s.series[0].executions.iter().map(Vec::len).collect();
            assert_eq!(shape, [5, 5, 5]);
        }
        other => panic!("the reader gives {other:?}"),
    }
}

/// The copy and alloc suites' data is checked when the suite is complete
/// (schema only, as for bernoulli and ops below).
#[test]
fn copy_and_alloc_data_are_checked() {
    let v = validator();
    let run = serde_json::to_value(full_run()).unwrap();
    assert_eq!(run["suites"][5]["suite"], "copy");
    assert_eq!(run["suites"][6]["suite"], "alloc");
    let cases: [Mutation; 10] = [
        ("copy negative sample", |d| {
            d["suites"][5]["data"]["cases"][0]["samples_ns"][0] = json!(-1.0)
        }),
        ("copy variant a string", |d| {
            d["suites"][5]["data"]["cases"][0]["variant"] = json!("2")
        }),
        ("copy variant 9", |d| {
            d["suites"][5]["data"]["cases"][0]["variant"] = json!(9)
        }),
        ("copy without cases", |d| {
            d["suites"][5]["data"]
                .as_object_mut()
                .unwrap()
                .remove("cases");
        }),
        ("copy copies_per_sample 0", |d| {
            d["suites"][5]["data"]["cases"][0]["copies_per_sample"] = json!(0)
        }),
        ("copy cache_bytes negative", |d| {
            d["suites"][5]["data"]["cache_bytes"][0]["bytes"] = json!(-1)
        }),
        ("alloc negative measurement", |d| {
            d["suites"][6]["data"]["configs"][0]["executions"][0]["measurements"][2] = json!(-1.0)
        }),
        ("alloc measurement a string", |d| {
            d["suites"][6]["data"]["configs"][0]["executions"][0]["measurements"][0] =
                json!("1.5e6")
        }),
        ("alloc execution without ok", |d| {
            d["suites"][6]["data"]["configs"][0]["executions"][0]
                .as_object_mut()
                .unwrap()
                .remove("ok");
        }),
        ("alloc colour_cache a string", |d| {
            d["suites"][6]["data"]["colour_cache"] = json!("L2")
        }),
    ];
    for (name, f) in cases {
        let mut d = run.clone();
        f(&mut d);
        assert_invalid(&v, name, &d);
        // A failed suite's data is not checked (partial or checkpointed data).
        let idx = if name.starts_with("copy") { 5 } else { 6 };
        d["suites"][idx]["status"] = json!("failed");
        assert_valid(&v, &format!("{name}, suite failed"), &d);
    }
}

/// A checkpoint of an unfinished alloc suite (status failed, data so far)
/// validates and is read as partial alloc data.
#[test]
fn checkpointed_alloc_is_read() {
    let v = validator();
    let mut run = full_run();
    run.status = "in_progress".into();
    run.ended_at = None;
    let alloc = run.suites.pop().unwrap();
    run.suites = vec![Suite {
        status: "failed".into(),
        error: Some("in progress: the run ended before this suite finished".into()),
        ..alloc
    }];
    let value = serde_json::to_value(&run).unwrap();
    assert_valid(&v, "checkpointed alloc", &value);
    match read_document("c.json", value.to_string().as_bytes()) {
        Ok(Document::Run(doc)) => {
            assert_eq!(doc.unfinished, [SuiteId::Alloc.name()]);
            assert_eq!(doc.alloc, Some(full_alloc()));
        }
        other => panic!("{other:?}"),
    }
}

/// The bernoulli and ops suites' data is checked when the suite is complete.
/// (Schema only: whether this build's reader parses these suites is up to
/// the reader.)
#[test]
fn bernoulli_and_ops_data_are_checked() {
    let v = validator();
    let run = serde_json::to_value(full_run()).unwrap();
    assert_eq!(run["suites"][2]["suite"], "bernoulli");
    assert_eq!(run["suites"][3]["suite"], "ops");
    let cases: [Mutation; 8] = [
        ("bernoulli n a string", |d| {
            d["suites"][2]["data"]["overhead"]["n"] = json!("200")
        }),
        ("bernoulli n 0", |d| {
            d["suites"][2]["data"]["events"][0]["trials"]["n"] = json!(0)
        }),
        ("bernoulli without events", |d| {
            d["suites"][2]["data"]
                .as_object_mut()
                .unwrap()
                .remove("events");
        }),
        ("bernoulli confidence 1", |d| {
            d["suites"][2]["data"]["confidence"] = json!(1.0)
        }),
        ("bernoulli negative reference sample", |d| {
            d["suites"][2]["data"]["events"][0]["reference_ns"][0] = json!(-1.0)
        }),
        ("ops copies 0", |d| {
            d["suites"][3]["data"]["copies"] = json!(0)
        }),
        ("ops counter_hz 0", |d| {
            d["suites"][3]["data"]["counter_hz"] = json!(0)
        }),
        ("ops available a string", |d| {
            d["suites"][3]["data"]["ops"][0]["available"] = json!("yes")
        }),
    ];
    for (name, f) in cases {
        let mut d = run.clone();
        f(&mut d);
        assert_invalid(&v, name, &d);
        // A failed suite's data is not checked (partial data is allowed).
        let idx = if name.starts_with("bernoulli") { 2 } else { 3 };
        d["suites"][idx]["status"] = json!("failed");
        assert_valid(&v, &format!("{name}, suite failed"), &d);
    }
}

fn full_trace() -> TraceData {
    TraceData {
        metrics: vec![
            TraceMetric {
                name: "wall_ns".into(),
                unit: "ns".into(),
                class: "software".into(),
                source: "clock_gettime".into(),
                description: Some("length of the interval".into()),
            },
            TraceMetric {
                name: "progress".into(),
                unit: "work units".into(),
                class: "progress".into(),
                source: "workload".into(),
                description: None,
            },
            TraceMetric {
                name: "compress.matches".into(),
                unit: "count".into(),
                class: "instrumentation".into(),
                source: "workload_counter".into(),
                description: None,
            },
        ],
        unavailable: vec![UnavailableMetric {
            name: "cycles".into(),
            source: "perf_event".into(),
            reason: "perf_event_open: No such file or directory (ENOENT, errno 2)".into(),
        }],
        workloads: vec![TraceWorkload {
            name: "compress".into(),
            description: "LZ77".into(),
            interval_ns: 1e7,
            levels: vec![
                InstrumentationLevel {
                    level: 0,
                    description: "uninstrumented".into(),
                    counters: 0,
                },
                InstrumentationLevel {
                    level: 1,
                    description: "matches".into(),
                    counters: 1,
                },
            ],
            runs: vec![
                TraceRun {
                    level: 0,
                    repetition: 0,
                    wall_ns: 2.5e7,
                    instrumentation_count: 0,
                    columns: vec!["wall_ns".into(), "progress".into()],
                    records: vec![vec![1e7, 30.0], vec![1e7, 32.0], vec![5e6, 16.0]],
                },
                TraceRun {
                    level: 1,
                    repetition: 0,
                    wall_ns: 2.6e7,
                    instrumentation_count: 9,
                    columns: vec![
                        "wall_ns".into(),
                        "progress".into(),
                        "compress.matches".into(),
                    ],
                    records: vec![
                        vec![1e7, 30.0, 4.0],
                        vec![1e7, 32.0, 5.0],
                        vec![6e6, 16.0, 0.0],
                    ],
                },
            ],
        }],
    }
}

/// A trace suite validates, reads back equal, and its data is checked when
/// the suite is complete (by the schema and, where it can, the reader).
#[test]
fn trace_data_validates_and_is_checked() {
    let v = validator();
    let mut run = full_run();
    run.suites.push(Suite {
        suite: "trace".into(),
        status: "complete".into(),
        error: None,
        started_at: "2025-11-21T12:00:04Z".into(),
        ended_at: "2025-11-21T12:00:05Z".into(),
        config: json!({"quick": true}),
        fallbacks: vec![],
        data: serde_json::to_value(full_trace()).unwrap(),
    });
    check_run_both_ways(&v, "run with trace", &run);
    match read_document("t.json", serde_json::to_vec(&run).unwrap().as_slice()) {
        Ok(Document::Run(doc)) => assert_eq!(doc.trace, Some(full_trace())),
        other => panic!("{other:?}"),
    }
    let value = serde_json::to_value(&run).unwrap();
    let at = value["suites"]
        .as_array()
        .unwrap()
        .iter()
        .position(|s| s["suite"] == "trace")
        .unwrap();
    // Rejected by both the schema and the reader.
    let both: [Mutation; 4] = [
        ("trace wall_ns 0", |d| {
            d["workloads"][0]["runs"][0]["wall_ns"] = json!(0)
        }),
        ("trace level a string", |d| {
            d["workloads"][0]["runs"][1]["level"] = json!("1")
        }),
        ("trace without metrics", |d| {
            d.as_object_mut().unwrap().remove("metrics");
        }),
        ("trace record value a string", |d| {
            d["workloads"][0]["runs"][0]["records"][0][1] = json!("30")
        }),
    ];
    // The reader's cross-checks the schema cannot express.
    let reader_only: [Mutation; 2] = [
        ("trace column not a metric", |d| {
            d["workloads"][0]["runs"][0]["columns"][1] = json!("nope")
        }),
        ("trace short record", |d| {
            d["workloads"][0]["runs"][1]["records"][2] = json!([1e6, 2.0])
        }),
    ];
    for (name, f) in both.iter().chain(reader_only.iter()) {
        let mut d = value.clone();
        f(&mut d["suites"][at]["data"]);
        let in_schema = both.iter().any(|(n, _)| n == name);
        if in_schema {
            assert_invalid(&v, name, &d);
        }
        assert!(
            read_document("m.json", d.to_string().as_bytes()).is_err(),
            "{name}: the reader accepts it"
        );
        // A failed suite's data is not checked by the schema.
        d["suites"][at]["status"] = json!("failed");
        assert_valid(&v, &format!("{name}, suite failed"), &d);
    }
}

fn full_bottleneck() -> BottleneckData {
    let op = |name: &str, form: &str| OpMeasurement {
        name: name.into(),
        group: "memory".into(),
        form: form.into(),
        implementation: "asm".into(),
        instruction: Some("mov rdi, [rdi]".into()),
        available: true,
        unavailable_reason: None,
        portable_n_ns: vec![400.0, 410.0],
        portable_2n_ns: vec![800.0, 805.0],
        counter_n_ticks: vec![920.0, 930.0],
        counter_2n_ticks: vec![1840.0, 1850.0],
    };
    BottleneckData {
        clock: "tsc_lfence_rdtsc".into(),
        unit: "counter_ticks".into(),
        counter_hz: Some(2.3e9),
        tick: 1.0,
        read_cost: vec![47.5, 48.0],
        min_tick_multiple: 1000.0,
        min_read_multiple: 1000.0,
        copies: 1000,
        costs: vec![op("load_u64", "latency"), op("load_u64", "throughput")],
        cache_bytes: vec![NamedSize {
            name: "L1d".into(),
            bytes: 49152,
        }],
        kernels: vec![BottleneckKernel {
            name: "pointer_chase".into(),
            description: "p = *p".into(),
            model: "latency".into(),
            implementation: "asm".into(),
            max_working_set_bytes: 65536,
            size_note: Some("quick".into()),
        }],
        cases: vec![
            BottleneckCase {
                kernel: "pointer_chase".into(),
                working_set_bytes: 4096,
                shape: "lines=64".into(),
                passes: 1,
                counts: [("load_u64".to_string(), 64u64)].into_iter().collect(),
                chain: [("load_u64".to_string(), 64u64)].into_iter().collect(),
                times: vec![300.0, 310.0],
                timable: false,
                untimable_reason: Some("short".into()),
            },
            BottleneckCase {
                kernel: "pointer_chase".into(),
                working_set_bytes: 65536,
                shape: "lines=1024".into(),
                passes: 10,
                counts: [("load_u64".to_string(), 10240u64)].into_iter().collect(),
                chain: [("load_u64".to_string(), 10240u64)].into_iter().collect(),
                times: vec![150000.0, 151000.0],
                timable: true,
                untimable_reason: None,
            },
        ],
    }
}

/// A bottleneck suite validates, reads back equal, and bad data is
/// rejected by the schema and the reader.
#[test]
fn bottleneck_data_validates_and_is_checked() {
    let v = validator();
    let mut run = full_run();
    run.suites.push(Suite {
        suite: "bottleneck".into(),
        status: "complete".into(),
        error: None,
        started_at: "2025-11-21T12:00:04Z".into(),
        ended_at: "2025-11-21T12:00:05Z".into(),
        config: json!({"mode": "quick"}),
        fallbacks: vec![],
        data: serde_json::to_value(full_bottleneck()).unwrap(),
    });
    check_run_both_ways(&v, "run with bottleneck", &run);
    match read_document("b.json", serde_json::to_vec(&run).unwrap().as_slice()) {
        Ok(Document::Run(doc)) => assert_eq!(doc.bottleneck, Some(full_bottleneck())),
        other => panic!("{other:?}"),
    }
    let value = serde_json::to_value(&run).unwrap();
    let at = value["suites"]
        .as_array()
        .unwrap()
        .iter()
        .position(|s| s["suite"] == "bottleneck")
        .unwrap();
    type Mutation = (&'static str, fn(&mut Value));
    let both: [Mutation; 5] = [
        ("bottleneck negative time", |d| {
            d["cases"][1]["times"][0] = json!(-1.0)
        }),
        ("bottleneck no repetitions", |d| {
            d["cases"][1]["times"] = json!([])
        }),
        ("bottleneck unknown unit", |d| d["unit"] = json!("furlongs")),
        ("bottleneck tick 0", |d| d["tick"] = json!(0)),
        ("bottleneck without cases", |d| {
            d.as_object_mut().unwrap().remove("cases");
        }),
    ];
    let reader_only: [Mutation; 2] = [
        ("bottleneck ticks without a frequency", |d| {
            d["counter_hz"] = json!(null)
        }),
        ("bottleneck unpaired cost samples", |d| {
            d["costs"][0]["counter_2n_ticks"] = json!([1.0])
        }),
    ];
    for (name, f) in both.iter().chain(reader_only.iter()) {
        let mut d = value.clone();
        f(&mut d["suites"][at]["data"]);
        if both.iter().any(|(n, _)| n == name) {
            assert_invalid(&v, name, &d);
        }
        assert!(
            read_document("m.json", d.to_string().as_bytes()).is_err(),
            "{name}: the reader accepts it"
        );
        d["suites"][at]["status"] = json!("failed");
        assert_valid(&v, &format!("{name}, suite failed"), &d);
    }
}

/// The reader refuses an ops core clock whose paired chains do not pair up,
/// or that counts no adds, and names the field.
#[test]
fn ops_core_clock_pairs_are_checked() {
    let run = serde_json::to_value(full_run()).unwrap();
    assert_eq!(run["suites"][3]["suite"], "ops");
    let read = |d: &Value| read_document("r.json", d.to_string().as_bytes());
    assert!(read(&run).is_ok());

    let mut d = run.clone();
    d["suites"][3]["data"]["core_clock"]["ticks_2n"] = json!([83_310.0]);
    let e = read(&d).unwrap_err();
    assert_eq!(
        e.path.as_deref(),
        Some("suites[3].data.core_clock.ticks_2n"),
        "{e}"
    );
    assert!(e.message.contains("1 samples of 2n adds but 2"), "{e}");

    let mut d = run.clone();
    d["suites"][3]["data"]["core_clock"]["adds"] = json!(0);
    let e = read(&d).unwrap_err();
    assert_eq!(
        e.path.as_deref(),
        Some("suites[3].data.core_clock.adds"),
        "{e}"
    );

    // Files from before the paired chains (no ticks_2n) still read.
    let mut d = run;
    d["suites"][3]["data"]["core_clock"]
        .as_object_mut()
        .unwrap()
        .remove("ticks_2n");
    assert!(read(&d).is_ok());
}

/// A run with every suite: its report's cells come in the page's order
/// (`cell_list`), its JSON keys in the registry's order, and the per-suite
/// filter keeps exactly the cells asked for.
#[test]
fn cells_follow_the_registry() {
    use tickbook_analysis::report::{analyze_bytes, analyze_bytes_suites, Options};
    use tickbook_analysis::suites::cell_list;
    let mut run = full_run();
    for (name, data) in [
        ("trace", serde_json::to_value(full_trace()).unwrap()),
        (
            "bottleneck",
            serde_json::to_value(full_bottleneck()).unwrap(),
        ),
        (
            "browser",
            json!({
                "user_agent": "Mozilla/5.0 Test", "cross_origin_isolated": false,
                "reference": "performance.now", "clocks": [],
                "wasm": {"clock": "performance.now", "copies": 4, "repetitions": 1, "ops": [{
                    "name": "i64.add", "group": "integer", "form": "latency", "iterations": 10,
                    "long_n_ns": [40.0], "long_2n_ns": [80.0]
                }]}
            }),
        ),
        (
            "commands",
            json!({
                "commands": [{"name": "a", "command": "true"}, {"name": "b", "command": "false"}],
                "order": "interleaved", "seed": 1, "shell": null, "warmup": 0,
                "rounds": [[0, 1], [1, 0], [0, 1]],
                "runs": [
                    {"command": 0, "round": 0, "position": 0, "start_ns": 0.0, "wall_ns": 10.0, "user_ns": 1.0, "sys_ns": 1.0, "max_rss_kib": 1, "exit_code": 0},
                    {"command": 1, "round": 0, "position": 1, "start_ns": 20.0, "wall_ns": 12.0, "user_ns": 1.0, "sys_ns": 1.0, "max_rss_kib": 1, "exit_code": 1},
                    {"command": 1, "round": 1, "position": 0, "start_ns": 40.0, "wall_ns": 13.0, "user_ns": 1.0, "sys_ns": 1.0, "max_rss_kib": 1, "exit_code": 1},
                    {"command": 0, "round": 1, "position": 1, "start_ns": 60.0, "wall_ns": 11.0, "user_ns": 1.0, "sys_ns": 1.0, "max_rss_kib": 1, "exit_code": 0},
                    {"command": 0, "round": 2, "position": 0, "start_ns": 80.0, "wall_ns": 10.5, "user_ns": 1.0, "sys_ns": 1.0, "max_rss_kib": 1, "exit_code": 0},
                    {"command": 1, "round": 2, "position": 1, "start_ns": 99.0, "wall_ns": 12.5, "user_ns": 1.0, "sys_ns": 1.0, "max_rss_kib": 1, "exit_code": 1}
                ]
            }),
        ),
    ] {
        run.suites.push(Suite {
            suite: name.into(),
            status: "complete".into(),
            error: None,
            started_at: "2025-11-21T12:00:04Z".into(),
            ended_at: "2025-11-21T12:00:05Z".into(),
            config: json!({"quick": true}),
            fallbacks: vec![],
            data,
        });
    }
    let bytes = serde_json::to_vec(&run).unwrap();
    let opts = Options {
        impact_resamples: 20,
        ..Options::default()
    };
    let report = analyze_bytes("all.json", &bytes, &opts);
    assert!(report.ok, "{:?}", report.error);
    let cells: Vec<&str> = report.cells().iter().map(|c| c.name()).collect();
    let page: Vec<&str> = cell_list()
        .iter()
        .map(|c| c.name)
        .filter(|n| *n != "samples")
        .collect();
    assert_eq!(cells, page);
    assert_eq!(
        cells,
        [
            "clocks",
            "bernoulli",
            "ops",
            "copy",
            "alloc",
            "trace",
            "bottleneck",
            "browser",
            "commands"
        ]
    );
    let json = serde_json::to_value(&report).unwrap();
    let text = serde_json::to_string(&report).unwrap();
    let keys = top_level_keys(&text);
    assert_eq!(
        keys,
        [
            "file",
            "ok",
            "kind",
            "info",
            "fitness",
            "warnings",
            "clocks",
            "bernoulli",
            "ops",
            "copy",
            "alloc",
            "bottleneck",
            "trace",
            "browser",
            "commands",
            "options"
        ]
    );
    let some = analyze_bytes_suites("all.json", &bytes, &opts, &["copy".into(), "trace".into()]);
    let cells: Vec<&str> = some.cells().iter().map(|c| c.name()).collect();
    assert_eq!(cells, ["copy", "trace"]);
    assert_eq!(
        serde_json::to_value(&some.copy).unwrap(),
        json["copy"],
        "a cell alone equals the cell of the whole analysis"
    );
}

/// The keys of a JSON object in the order they are written (serde_json's
/// `Value` sorts them).
fn top_level_keys(text: &str) -> Vec<String> {
    struct Keys(Vec<String>);
    impl<'de> serde::Deserialize<'de> for Keys {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = Keys;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut m: A,
                ) -> Result<Keys, A::Error> {
                    let mut keys = Vec::new();
                    while let Some(k) = m.next_key::<String>()? {
                        m.next_value::<serde::de::IgnoredAny>()?;
                        keys.push(k);
                    }
                    Ok(Keys(keys))
                }
            }
            d.deserialize_map(V)
        }
    }
    serde_json::from_str::<Keys>(text).unwrap().0
}
