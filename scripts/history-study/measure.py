"""Measures the study's history for real: for each commit of truth.py, each
series' workload (work.c at that commit's iteration count) timed by
hyperfine, pyperf and `tickbook run`, one file per commit and tool:

    OUT/hyperfine/commit-NNN.json   hyperfine --export-json
    OUT/pyperf/commit-NNN.json      pyperf (pyperf_commit.py)
    OUT/tickbook/commit-NNN.json    tickbook run --out
    OUT/truth.json                  the true changes and disturbed commits
    OUT/measurement.json            machine, tools, dates, load per commit

The three tools measure a commit one after the other (hyperfine, pyperf,
tickbook) before the next commit starts, so a commit's disturbance falls on
all three. At a disturbed commit a background `stress-ng --cpu 3` runs for
that commit's three measurements only. Existing files are kept (a rerun
resumes where it stopped). Run through ./run, which builds the binaries.
"""

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone

import truth

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = ["hyperfine", "pyperf", "tickbook"]


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def autogroup():
    try:
        with open("/proc/self/autogroup") as f:
            return f.read().strip()
    except OSError:
        return None


def pyperf_version():
    from importlib.metadata import PackageNotFoundError, version as installed

    try:
        return "pyperf " + installed("pyperf")
    except PackageNotFoundError:
        return None


def version(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=False)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError):
        return None


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def run(cmd, cwd):
    done = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"error: {' '.join(cmd)} failed ({done.returncode}):\n{done.stderr}")


def measure(tool, i, out, args):
    """Measures commit i with one tool into out (a path that does not exist yet)."""
    label = f"commit-{i:03d}"
    iters = {s: truth.iterations(s, i) for s in truth.SERIES}
    tmp = out + ".part"
    if tool == "hyperfine":
        cmd = ["hyperfine", "-N", "--style", "none", "--warmup", str(args.warmup),
               "--runs", str(args.runs), "--export-json", tmp]
        for s in truth.SERIES:
            cmd += ["-n", s]
        cmd += [f"{args.work} {iters[s]}" for s in truth.SERIES]
    elif tool == "pyperf":
        # processes x values = runs per series, as the other tools'.
        cmd = [sys.executable, os.path.join(HERE, "pyperf_commit.py"), "--quiet",
               "--processes", str(args.pyperf_processes), "--values", str(args.pyperf_values),
               "--warmups", "1", "--loops", "1", "-o", tmp,
               "--work", args.work, "--commit", label]
        for s in truth.SERIES:
            cmd += ["--series", f"{s}={iters[s]}"]
    else:
        cmd = [args.tickbook, "run", "-N", "--warmup", str(args.warmup), "--runs", str(args.runs),
               "--seed", str(1000 + i), "--out", tmp]
        for s in truth.SERIES:
            cmd += ["--name", s]
        cmd += [f"{args.work} {iters[s]}" for s in truth.SERIES]
    if os.path.exists(tmp):
        os.remove(tmp)
    # Outside any git work tree, so tickbook files record no (misleading,
    # shared) commit: the order is the measurement's.
    run(cmd, cwd=args.scratch)
    os.replace(tmp, out)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out", help="output folder")
    p.add_argument("--work", required=True, help="the workload binary (work.c built)")
    p.add_argument("--tickbook", required=True, help="the tickbook binary")
    p.add_argument("--scratch", required=True, help="a folder outside any git work tree")
    p.add_argument("--runs", type=int, default=20, help="runs per series and commit (hyperfine, tickbook)")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--pyperf-processes", type=int, default=5)
    p.add_argument("--pyperf-values", type=int, default=4)
    p.add_argument("--tools", default=",".join(TOOLS))
    args = p.parse_args()
    tools = args.tools.split(",")
    for t in tools:
        if t not in TOOLS:
            sys.exit(f"error: unknown tool {t!r} (one of {', '.join(TOOLS)})")
        os.makedirs(os.path.join(args.out, t), exist_ok=True)
    with open(os.path.join(args.out, "truth.json"), "w") as f:
        json.dump(truth.truth(), f, indent=1)
        f.write("\n")

    meta_path = os.path.join(args.out, "measurement.json")
    meta = {}
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            meta = json.load(f)
    meta.setdefault("started", datetime.now(timezone.utc).isoformat(timespec="seconds"))
    meta["machine"] = {"cpu": cpu_model(), "cpus": os.cpu_count(), "kernel": platform.release(),
                       "autogroup": autogroup()}
    meta["tools"] = {
        "hyperfine": version(["hyperfine", "--version"]),
        "pyperf": pyperf_version(),
        "tickbook": version([args.tickbook, "--version"]),
        "stress-ng": version(["stress-ng", "--version"]),
    }
    meta["settings"] = {
        "runs": args.runs, "warmup": args.warmup,
        "pyperf_processes": args.pyperf_processes, "pyperf_values": args.pyperf_values,
    }
    commits = meta.setdefault("commits", {})

    def save():
        with open(meta_path, "w") as f:
            json.dump(meta, f, indent=1)
            f.write("\n")

    save()

    for i in range(truth.COMMITS):
        todo = [t for t in tools if not os.path.exists(os.path.join(args.out, t, f"commit-{i:03d}.json"))]
        if not todo:
            continue
        burst = None
        if i in truth.DISTURBED:
            # In this session (so in its autogroup, which ./run raises: a
            # burst in a session of its own would barely reach the
            # measurement) but its own process group, ended as one.
            # Three hogs for two CPUs: with two (--cpu 2) the scheduler let
            # the freshly started runs go first often enough that the burst
            # reached only some of them (seen: 6 of hyperfine's 60 runs).
            burst = subprocess.Popen(["stress-ng", "--cpu", "3", "--timeout", "900s", "--quiet"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     process_group=0)
            time.sleep(1.0)
        rec = commits.setdefault(str(i), {})
        try:
            for t in todo:
                before, t0 = loadavg(), time.monotonic()
                measure(t, i, os.path.join(args.out, t, f"commit-{i:03d}.json"), args)
                rec[t] = {"load_before": before, "load_after": loadavg(),
                          "seconds": round(time.monotonic() - t0, 2)}
        finally:
            if burst is not None:
                os.killpg(burst.pid, signal.SIGTERM)
                burst.wait()
        rec["disturbed"] = i in truth.DISTURBED
        meta["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
        save()
        print(f"commit {i:3d}/{truth.COMMITS}: " + ", ".join(f"{t} {rec[t]['seconds']} s" for t in todo)
              + (" (disturbed)" if i in truth.DISTURBED else "") + f", load {loadavg()[0]}", flush=True)


if __name__ == "__main__":
    main()
