"""One commit's pyperf measurement: each series a `bench_command` of the
workload, all in one pyperf JSON (a benchmark suite), run by measure.py as
`python3 pyperf_commit.py --work BIN --series NAME=ITERATIONS ... -o FILE`
with pyperf's own options (--processes, --values, --warmups, --loops)."""

import pyperf


def add_cmdline_args(cmd, args):
    # pyperf re-runs this script in each worker process: pass our arguments on.
    cmd.extend(["--work", args.work, "--commit", args.commit])
    for s in args.series:
        cmd.extend(["--series", s])


runner = pyperf.Runner(add_cmdline_args=add_cmdline_args)
runner.argparser.add_argument("--work", required=True, help="the workload binary")
runner.argparser.add_argument("--commit", required=True, help="the commit's label")
runner.argparser.add_argument(
    "--series", action="append", required=True, help="NAME=ITERATIONS"
)
args = runner.parse_args()
runner.metadata["commit_id"] = args.commit
for spec in args.series:
    name, n = spec.split("=", 1)
    runner.bench_command(name, [args.work, n])
