#!/usr/bin/env python3
"""Relay ratio: the gateway against a do-nothing C relay, same broker, same load.

Run through run.sh (it builds the executables and renders the broker configuration):
    bash Benchmarks/relay-ratio/run.sh --encoding json
    bash Benchmarks/relay-ratio/run.sh --encoding protobuf --quick

For each watch count (ascending) it runs two trials, each on a fresh private mosquitto with the
repository's flow-control settings: the relay (relay.c: subscribe wearables/+/#, republish each
message at QoS 1) and the release gateway (every check and derivation on, open registry). The
load is loadgen.c replaying `wearable-sim generate` output in real time: per watch one
800-sample batched/accelerometer and one 200-sample batched/device-motion batch a second,
QoS 1, the watches spread evenly over each second.

A trial is sustained when every batch arrived (relay: its own count; gateway:
gateway_frames_processed_total on the retained gateway/metrics, published every 0.2 s) no
more than --max-drain seconds after the load generator's last publish, and the load generator
itself kept its schedule (max lag <= 0.5 s). The sustained count of a side is the largest
count below its first failure. CPU seconds (user + system) come from psutil over the load phase;
wake-ups per frame from the voluntary context switches of the side's threads over the same
phase (psutil, each thread's; threads that ended meanwhile are not counted); the side's
CPU by thread name (psutil's threads), the four largest shares printed per frame;
resident memory from /proc/<pid>/status (VmRSS). Swing latency: arrival of gateway/<id>/swing
(mosquitto_sub's receive time) minus the publish time of the later of the two batches whose
samples reach the swing's impact (a miss: its start).

With --pin-side CPUS the side under test runs on those CPUs (under taskset, from its start) and
the broker, the load generator, the subscribers and this script on the others, so
a side's capacity is its own cost per frame or the broker's, not the sum of the three.

Linux only. Python 3 with prometheus-client and psutil (Benchmarks/requirements.txt; run.sh installs them). Figures and method:
docs/performance.md.
"""

import argparse
import bisect
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from benchtools import context_switches, cpu_seconds, disk_written_bytes, free_port, metric_totals, stop_processes, thread_cpu_seconds, wait_for_broker  # noqa: E402,E501


def rss_bytes(pid, kind="VmRSS"):
    """Resident bytes of a live process: VmRSS, or RssAnon (heap and stacks, without the
    file-backed pages such as the journal's mapped ring)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(kind + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        pass
    return None


def percentile(values, q):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


class Lines:
    """Reads a process's stdout lines on a thread; wait() for one matching a predicate."""

    def __init__(self, process, sink=None):
        self.lines = []
        self.cond = threading.Condition()
        self.process = process
        self.sink = sink
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        for line in self.process.stdout:
            stamp = time.time()
            with self.cond:
                self.lines.append((stamp, line.rstrip("\n")))
                if self.sink:
                    self.sink(stamp, line.rstrip("\n"))
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def wait(self, predicate, timeout):
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for stamp, line in reversed(self.lines):
                    if predicate(line):
                        return line
                left = deadline - time.monotonic()
                if left <= 0 or (self.process.poll() is not None and not self.lines):
                    return None
                self.cond.wait(min(left, 0.2))


class Template:
    """index.tsv: per template and stream, the batches' last sample timestamps in order."""

    def __init__(self, path):
        self.rows = {}  # template -> list of (stream, last)
        with open(path) as f:
            next(f)
            for line in f:
                template, stream, _seq, _time, _first, last = line.rstrip("\n").split("\t")
                self.rows.setdefault(int(template), []).append((stream, float(last)))
        self.count = len(self.rows)
        # template -> stream -> (sorted last timestamps, batch indexes)
        self.by_stream = {}
        for template, rows in self.rows.items():
            streams = {}
            for index, (stream, last) in enumerate(rows):
                lasts, indexes = streams.setdefault(stream, ([], []))
                lasts.append(last)
                indexes.append(index)
            self.by_stream[template] = streams

    def carrying(self, template, timestamp):
        """Batch indexes (one per stream) whose samples first reach `timestamp`."""
        out = []
        for lasts, indexes in self.by_stream[template].values():
            at = bisect.bisect_left(lasts, timestamp)
            if at < len(lasts):
                out.append(indexes[at])
        return out


class Trial:
    def __init__(self, args, side, watches, conf, port):
        self.args, self.side, self.watches, self.conf, self.port = args, side, watches, conf, port
        self.started = []
        self.logs = os.path.join(args.logs, f"{side}-{args.encoding}-w{args.workers}-{watches}")
        os.makedirs(self.logs, exist_ok=True)

    def spawn(self, command, **kwargs):
        process = subprocess.Popen(command, **kwargs)
        self.started.append(process)
        return process

    def pinned(self, command):
        """`command` under `taskset` on the --pin-side CPUs, from its first instruction (a gateway
        sizes its workers by the CPUs it may use); as it is without --pin-side. The broker, the load
        generator and the subscribers inherit this script's affinity: the other CPUs (main())."""
        if not self.args.pin_side:
            return command
        return ["taskset", "-c", ",".join(str(cpu) for cpu in sorted(self.args.pin_side)), *command]

    def stop_all(self):
        stop_processes(self.started, gateway_timeout=20)

    def run(self):
        try:
            return self._run()
        finally:
            self.stop_all()
            # The journal ring (256 MiB) and the recorder database of each trial are not logs.
            for name in os.listdir(self.logs):
                if name == "journal.bin" or name.startswith("recorder.sqlite"):
                    os.remove(os.path.join(self.logs, name))

    def _run(self):
        args, port, watches = self.args, self.port, self.watches
        broker = self.spawn([args.mosquitto, "-c", self.conf], stdout=subprocess.DEVNULL,
                            stderr=open(os.path.join(self.logs, "mosquitto.log"), "w"), start_new_session=True)
        wait_for_broker(broker, port, self.logs)

        result = {"side": self.side, "watches": watches, "pinSide": sorted(args.pin_side) if args.pin_side else None}
        metrics = {"latest": {}, "samples": []}
        swings = []
        # Delivered: every batch of the run; measured (CPU per frame): the batches after the warm-up.
        target = 2 * watches * (args.warm_up + args.seconds)
        measured = 2 * watches * args.seconds

        if self.side == "relay":
            subject = self.spawn(self.pinned([os.path.join(args.bin_dir, "relay"), "127.0.0.1", str(port)]),
                                 stdout=subprocess.PIPE, stderr=open(os.path.join(self.logs, "relay.log"), "w"), text=True,
                                 start_new_session=True)
            subject_lines = Lines(subject)
            if subject_lines.wait(lambda l: l == "subscribed", 10) is None:
                sys.exit("relay did not subscribe")

            def delivered():
                for _, line in reversed(subject_lines.lines):
                    parts = line.split()
                    if len(parts) == 2 and parts[0].isdigit():
                        return int(parts[0]), float(parts[1])
                return 0, None
        else:
            command = [os.path.join(args.release_dir, "wearable-gateway"), "run", "--broker", f"mqtt://127.0.0.1:{port}",
                       "--set", "registry.file=null", "--set", "metrics.publishInterval=0.2",
                       "--set", f"pipeline.workers={args.workers}",
                       # Everything on, as configured (config/gateway.yml), but the files and
                       # the HTTP port are the trial's own.
                       "--set", f"journal.path={self.logs}/journal.bin",
                       "--set", f"recorder.database={self.logs}/recorder.sqlite", "--set", f"state.path={self.logs}/state.sqlite",
                       "--set", "http.listen=127.0.0.1:0"]
            for item in args.set:
                command += ["--set", item]
            result["command"] = " ".join(command)
            subject = self.spawn(self.pinned(command), cwd=args.gateway_dir, stdout=subprocess.DEVNULL,
                                 stderr=open(os.path.join(self.logs, "gateway.log"), "w"), start_new_session=True)

            def on_metrics(stamp, line):
                # Each payload is followed by a line "==WG==" ('@' and '%' are escape characters of -F);
                # its lines are kept until then and parsed as one Prometheus text.
                if line == "==WG==":
                    metrics["latest"] = metric_totals("\n".join(metrics.pop("pending", [])) + "\n")
                    metrics["samples"].append((stamp, metrics["latest"]))
                    return
                metrics.setdefault("pending", []).append(line)

            follower = self.spawn(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-t", "gateway/metrics", "-F", "%p\n==WG=="],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            metric_lines = Lines(follower, on_metrics)

            def on_swing(stamp, line):
                parts = line.split(" ", 1)
                if len(parts) == 2:
                    try:
                        swings.append((float(parts[0]), json.loads(parts[1])))
                    except ValueError:
                        pass

            swing_sub = self.spawn(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-q", "1", "-t", "gateway/+/swing",
                                    "-F", "%U %p"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            Lines(swing_sub, on_swing)
            deadline = time.monotonic() + 60
            while "gateway_messages_received_total" not in metrics["latest"]:
                if time.monotonic() > deadline or subject.poll() is not None:
                    sys.exit("no gateway/metrics within 60 s; see " + self.logs)
                time.sleep(0.1)

            def processed():
                m = metrics["latest"]
                return m.get("gateway_frames_processed_total", 0)

            def snapshots():
                return metrics["latest"].get("gateway_device_snapshots_written_total", 0)

        rss_before = rss_bytes(subject.pid)
        anon_before = rss_bytes(subject.pid, "RssAnon")
        load_log = os.path.join(self.logs, "sent.tsv")
        load = self.spawn([os.path.join(args.bin_dir, "loadgen"), "--port", str(port), "--frames", args.frames,
                           "--watches", str(watches), "--seconds", str(args.warm_up + args.seconds), "--connections", str(args.connections),
                           "--log", load_log], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=open(os.path.join(self.logs, "loadgen.log"), "w"), text=True)
        load_lines = Lines(load)
        if load_lines.wait(lambda l: l.startswith("primed"), 60) is None:
            sys.exit("loadgen did not prime; see " + self.logs)
        if self.side == "gateway":
            # Every prime frame handled (hello, status, authorization, workout per watch), and
            # the snapshots those frames made written (the next state.snapshotInterval tick),
            # before the load starts: the load phase counts only batches, which change no
            # snapshot. Otherwise the prime's one snapshot per watch (tens of µs each) landed
            # in the load phase about half the time, a one-time cost per watch spread over a
            # short trial's 20 batches per watch.
            deadline = time.monotonic() + 60
            while (processed() < 4 * watches or processed() < metrics["latest"].get("gateway_messages_received_total", 0)
                   or snapshots() < watches):
                if time.monotonic() > deadline:
                    sys.exit("the gateway did not settle after priming; see " + self.logs)
                time.sleep(0.1)
            time.sleep(0.3)
            baseline = processed()
            snapshots_before = snapshots()
            rejected_before = metrics["latest"].get("gateway_frames_rejected_total", 0)
        else:
            baseline = delivered()[0]
        rss_primed = rss_bytes(subject.pid)
        pids = {"subject": subject.pid, "broker": broker.pid, "loadgen": load.pid}
        perf = None

        def start_measuring():
            nonlocal perf
            readings = ({name: cpu_seconds(pid) for name, pid in pids.items()}, context_switches(subject.pid),
                        thread_cpu_seconds(subject.pid), disk_written_bytes())
            if args.perf and self.side == "gateway":
                sampling = ["-e", args.perf_events] if args.perf_events else ["-F", "499"]
                perf = self.spawn(["perf", "record", *sampling, "-g", "-p", str(subject.pid), "-o",
                                   os.path.join(self.logs, "perf.data")], stdout=subprocess.DEVNULL,
                                  stderr=open(os.path.join(self.logs, "perf.log"), "w"))
            return readings

        loadgen_idle = cpu_seconds(load.pid)  # the load generator's CPU before its load phase
        rss_peak = 0
        if not args.warm_up:
            readings = start_measuring()
            if perf:
                time.sleep(1)
        start = time.time() + 0.5
        load.stdin.write(f"{start:.6f}\n")
        load.stdin.flush()
        if args.warm_up:
            # The measured window opens when the warm-up's batches have been sent.
            while time.time() < start + args.warm_up and load.poll() is None:
                rss_peak = max(rss_peak, rss_bytes(subject.pid) or 0)
                time.sleep(min(0.05, max(0.0, start + args.warm_up - time.time())))
            readings = start_measuring()
        cpu_start, switches_start, threads_start, disk_start = readings
        while load.poll() is None:
            rss_peak = max(rss_peak, rss_bytes(subject.pid) or 0)
            done = load_lines.wait(lambda l: l.startswith("done"), 0.2)
            if done:
                break
        done = load_lines.wait(lambda l: l.startswith("done"), 120)
        if done is None:
            sys.exit("loadgen did not finish; see " + self.logs)
        fields = dict(item.split("=", 1) for item in done.split()[1:])
        last_send = float(fields["last_send"])
        max_lag = float(fields["max_lag"])
        # Wait for everything (or give up after the drain budget plus slack).
        give_up = time.time() + args.max_drain + args.catch_up
        arrived_at = None
        while time.time() < give_up:
            rss_peak = max(rss_peak, rss_bytes(subject.pid) or 0)
            if self.side == "relay":
                count, last_at = delivered()
                if count - baseline >= target:
                    arrived_at = last_at
                    break
            else:
                if processed() - baseline >= target:
                    arrived_at = metrics["samples"][-1][0]
                    # the counter is published every 0.2 s: the first sample that shows it
                    for stamp, m in metrics["samples"]:
                        if m.get("gateway_frames_processed_total", 0) - baseline >= target:
                            arrived_at = stamp
                            break
                    break
            time.sleep(0.05)
        end_cpu = {name: cpu_seconds(pid) for name, pid in pids.items()}
        switches_end = context_switches(subject.pid)
        threads_end = thread_cpu_seconds(subject.pid)
        disk_end = disk_written_bytes()
        rss_after = rss_bytes(subject.pid)
        anon_after = rss_bytes(subject.pid, "RssAnon")
        if perf:
            perf.send_signal(signal.SIGINT)
            perf.wait(timeout=60)
        if self.side == "relay":
            got = delivered()[0] - baseline
        else:
            got = processed() - baseline
            final = metrics["latest"]
            result["overCapacity"] = final.get("gateway_handoff_over_capacity_total", 0)
            result["handoffWaits"] = final.get("gateway_handoff_waits_total", 0)
            result["rejected"] = final.get("gateway_frames_rejected_total", 0) - rejected_before
            result["snapshots"] = final.get("gateway_device_snapshots_written_total", 0) - snapshots_before
        drain = (arrived_at - last_send) if arrived_at else None
        result.update(
            target=target, measured=measured, warmUp=args.warm_up, delivered=int(got), drain=drain, maxLag=max_lag,
            sustained=bool(arrived_at and drain <= args.max_drain and max_lag <= 0.5),
            rssBefore=rss_before, rssPrimed=rss_primed, rssPeak=rss_peak, rssAfter=rss_after,
            anonBefore=anon_before, anonAfter=anon_after,
        )
        for name in pids:
            if cpu_start[name] is not None and end_cpu.get(name) is not None:
                result[f"cpu_{name}"] = end_cpu[name] - cpu_start[name]
        if switches_start is not None and switches_end is not None:
            result["wakeups_subject"] = switches_end - switches_start
        if disk_start is not None and disk_end is not None:
            # The whole machine's, over the load phase: the side's journal write-back and
            # anything else that wrote meanwhile.
            result["diskWrittenBytes"] = disk_end - disk_start
        if threads_start is not None and threads_end is not None:
            # Per thread name; threads started during the phase count from zero.
            result["cpu_subject_threads"] = {name: round(seconds - threads_start.get(name, 0), 3)
                                             for name, seconds in threads_end.items()
                                             if seconds - threads_start.get(name, 0) > 0}
        # The load generator has exited by now: its own count (getrusage) over the load phase.
        if "cpu" in fields:
            result["cpu_loadgen"] = float(fields["cpu"])
            if args.warm_up and cpu_start.get("loadgen") is not None and loadgen_idle is not None:
                # Its count runs from the start of the load; the warm-up's part comes off.
                result["cpu_loadgen"] -= cpu_start["loadgen"] - loadgen_idle
        with open(os.path.join(self.logs, "mosquitto.log")) as f:
            result["brokerDropped"] = sum(1 for line in f if "dropped" in line)
        if self.side == "gateway":
            result["latencies"] = self.swing_latencies(swings, load_log)
        return result

    def swing_latencies(self, swings, load_log):
        sent = {}
        with open(load_log) as f:
            for line in f:
                watch, batch, stamp = line.split("\t")
                sent[(int(watch), int(batch))] = float(stamp)
        out = []
        for arrived, event in swings:
            match = re.match(r"w(\d+)$", str(event.get("deviceId", "")))
            if not match:
                continue
            watch = int(match.group(1))
            when = event.get("impactTimestamp", event.get("startTimestamp"))
            if when is None:
                continue
            batches = self.args.template.carrying(watch % self.args.template.count, when)
            times = [sent.get((watch, b)) for b in batches]
            if times and all(t is not None for t in times):
                out.append(arrived - max(times))
        return out


def parse_cpus(text):
    """`1`, `0,2` or `2-3` as a set of CPU numbers."""
    cpus = set()
    for part in text.split(","):
        low, _, high = part.partition("-")
        cpus.update(range(int(low), int(high or low) + 1))
    return cpus


def fmt(value, spec, missing="-"):
    return missing if value is None else format(value, spec)


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("terminated"))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--encoding", choices=["json", "protobuf"], default="json")
    parser.add_argument("--watches", default="250,500,750,1000,1250,1500,2000,2500,3000",
                        help="ascending watch counts to try (comma separated)")
    parser.add_argument("--seconds", type=int, default=15, help="seconds of load per trial")
    parser.add_argument("--warm-up", type=int, default=0, metavar="SECONDS",
                        help="seconds of load before the measured window: CPU per frame then counts only the "
                             "--seconds after it, when the journal ring has lapped (0: from the first batch)")
    parser.add_argument("--workers", type=int, default=0, help="gateway pipeline.workers (0: one per core)")
    parser.add_argument("--connections", type=int, default=4, help="publishing connections of the load generator")
    parser.add_argument("--max-drain", type=float, default=1.0, help="seconds after the last publish by which everything must have arrived")
    parser.add_argument("--catch-up", type=float, default=10, help="extra seconds to wait before calling a trial lost")
    parser.add_argument("--retries", type=int, default=1,
                        help="runs again a failed trial whose load generator was over 0.5 s late (the machine, not the side, was busy)")
    parser.add_argument("--side", choices=["both", "relay", "gateway"], default="both")
    parser.add_argument("--keep-going", action="store_true", help="try every count even after a side's first failure")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="extra gateway --set (repeatable)")
    parser.add_argument("--perf", action="store_true",
                        help="perf record -g the gateway during each of its load phases (<logs>/<trial>/perf.data)")
    parser.add_argument("--perf-events", metavar="EVENTS",
                        help="with --perf: record these events (perf record -e, e.g. sched:sched_wakeup) instead of sampling CPU time")
    parser.add_argument("--pin-side", metavar="CPUS",
                        help="run the side under test on these CPUs (e.g. 1 or 2-3) and the broker, the load generator and "
                             "this script on the others: the side gets cores of its own, as when the broker and the "
                             "devices are elsewhere")
    parser.add_argument("--frames", required=True, help="frames.bin of wearable-sim generate")
    parser.add_argument("--bin-dir", required=True, help="folder of loadgen and relay")
    parser.add_argument("--release-dir", required=True, help="folder of the release wearable-gateway")
    parser.add_argument("--gateway-dir", default=REPO, metavar="DIR",
                        help="working folder of the gateway, whose config/gateway.yml it reads (default: this checkout; "
                             "compare-builds.sh passes an older checkout for an older build)")
    parser.add_argument("--broker-conf", required=True, help="mosquitto.conf template with @PORT@")
    parser.add_argument("--mosquitto", default="mosquitto")
    parser.add_argument("--logs", required=True)
    args = parser.parse_args()
    if args.pin_side:
        try:
            args.pin_side = parse_cpus(args.pin_side)
        except ValueError:
            parser.error(f"--pin-side takes CPU numbers and ranges such as 1, 0,2 or 2-3, not {args.pin_side!r}")
        if shutil.which("taskset") is None:
            parser.error("--pin-side needs taskset (Debian: util-linux)")
        rest = set(os.sched_getaffinity(0)) - args.pin_side
        if not rest or not args.pin_side <= set(os.sched_getaffinity(0)):
            parser.error(f"--pin-side must name some, not all, of the CPUs this runs on: {sorted(os.sched_getaffinity(0))}")
        os.sched_setaffinity(0, rest)  # inherited by every process started from here
    args.template = Template(os.path.join(os.path.dirname(args.frames), "index.tsv"))
    counts = [int(c) for c in args.watches.split(",")]

    sides = ["relay", "gateway"] if args.side == "both" else [args.side]
    failed = {side: False for side in sides}
    results = []
    for watches in counts:
        for side in sides:
            if failed[side] and not args.keep_going:
                continue
            port = free_port()
            with open(args.broker_conf) as f:
                template = f.read()
            text = template.replace("@PORT@", str(port))
            conf = os.path.join(args.logs, f"mosquitto-{port}.conf")
            with open(conf, "w") as f:
                f.write(text)
            result = Trial(args, side, watches, conf, port).run()
            for _ in range(args.retries):
                if result["sustained"] or result["maxLag"] <= 0.5:
                    break
                # The load generator itself fell behind (the machine is shared): that trial
                # measured the machine, not the side; run it again.
                print(f"{side:<8} {watches:>5} watches: load generator {result['maxLag']:.2f} s late; trying again", flush=True)
                port = free_port()
                conf = os.path.join(args.logs, f"mosquitto-{port}.conf")
                with open(conf, "w") as f:
                    f.write(template.replace("@PORT@", str(port)))
                result = Trial(args, side, watches, conf, port).run()
            results.append(result)
            frames = result["measured"]
            line = (f"{side:<8} {watches:>5} watches: delivered {result['delivered']}/{result['target']}, "
                    f"drain {fmt(result['drain'], '.2f')} s, loadgen lag {result['maxLag']:.2f} s, "
                    f"cpu/frame {side} {fmt(result.get('cpu_subject', 0) / frames * 1000, '.3f')} ms "
                    f"broker {fmt(result.get('cpu_broker', 0) / frames * 1000, '.3f')} ms "
                    f"loadgen {fmt(result.get('cpu_loadgen', 0) / frames * 1000, '.3f')} ms, "
                    f"{side} wake-ups/frame {fmt(result['wakeups_subject'] / frames if 'wakeups_subject' in result else None, '.2f')}")
            threads = result.get("cpu_subject_threads")
            if threads:
                ranked = sorted(threads.items(), key=lambda item: -item[1])[:4]
                line += ", by thread " + " ".join(f"{name} {seconds / frames * 1000:.3f}" for name, seconds in ranked) + " ms"
            if "diskWrittenBytes" in result:
                line += f", disk written {result['diskWrittenBytes'] / 1e6:.0f} MB (machine)"
            if side == "gateway":
                lat = result["latencies"]
                line += (f", swings {len(lat)} p50 {fmt(percentile(lat, 50), '.3f')} s p99 {fmt(percentile(lat, 99), '.3f')} s"
                         f", rss {result['rssAfter'] / 1e6:.0f} MB (peak {result['rssPeak'] / 1e6:.0f}, heap +{(result['anonAfter'] - result['anonBefore']) / 1e6:.0f})"
                         f", rejected {result.get('rejected', 0):g}, snapshots {result.get('snapshots', 0):g}")
            line += "  SUSTAINED" if result["sustained"] else "  not sustained"
            print(line, flush=True)
            if not result["sustained"]:
                failed[side] = True

    def sustained(side):
        best = 0
        for watches in counts:
            r = next((r for r in results if r["side"] == side and r["watches"] == watches), None)
            if r is None or not r["sustained"]:
                break
            best = watches
        return best

    print()
    print(f"encoding {args.encoding}, {args.seconds} s per trial"
          + (f" after a {args.warm_up} s warm-up" if args.warm_up else "") + ", "
          f"gateway pipeline.workers={args.workers}, "
          f"load generator connections {args.connections}"
          + (f", side pinned to CPUs {sorted(args.pin_side)} and the rest to {sorted(os.sched_getaffinity(0))}" if args.pin_side else ""))
    print()
    print("| side | sustained watches | CPU per batched frame (side / broker / load generator) at that count | "
          "swing latency p50 / p99 | resident per watch |")
    print("|---|---|---|---|---|")
    best = {}
    path_cpu = {}
    for side in sides:
        best[side] = sustained(side)
        r = next((r for r in results if r["side"] == side and r["watches"] == best[side]), None)
        if r is None:
            print(f"| {side} | < {counts[0]} | - | - | - |")
            continue
        frames = r["measured"]
        cpu = " / ".join(fmt(r.get(f"cpu_{n}"), "") if r.get(f"cpu_{n}") is None else f"{r[f'cpu_{n}'] / frames * 1000:.3f}"
                         for n in ("subject", "broker", "loadgen")) + " ms"
        latency = "-"
        per_watch = "-"
        if side == "gateway":
            lat = r["latencies"]
            latency = f"{fmt(percentile(lat, 50), '.3f')} s / {fmt(percentile(lat, 99), '.3f')} s ({len(lat)} swings)"
            per_watch = (f"{(r['anonAfter'] - r['anonBefore']) / r['watches'] / 1024:.0f} KB heap "
                         f"({(r['rssAfter'] - r['rssBefore']) / r['watches'] / 1024:.0f} KB resident, mapped file pages included)")
        print(f"| {side} | {best[side]} | {cpu} | {latency} | {per_watch} |")
        parts = [r.get(f"cpu_{n}") for n in ("subject", "broker", "loadgen")]
        if None not in parts:
            path_cpu[side] = sum(parts) / frames
    if "relay" in best and "gateway" in best and best["relay"]:
        print()
        print(f"ratio gateway / relay: {best['gateway'] / best['relay']:.2f} "
              f"(a side that sustained the largest count tried may sustain more: add counts with --watches)")
    if "relay" in path_cpu and "gateway" in path_cpu:
        # On a machine the three processes share, the count ratio tends to the ratio of what a
        # frame costs on each side's whole path; steadier than the counts on a busy machine.
        print(f"ratio predicted by CPU per frame (side + broker + load generator): "
              f"{path_cpu['relay'] / path_cpu['gateway']:.2f} "
              f"({path_cpu['relay'] * 1000:.3f} / {path_cpu['gateway'] * 1000:.3f} ms)")
    with open(os.path.join(args.logs, "results.json"), "w") as f:
        json.dump([{k: v for k, v in r.items() if k != "latencies"} | {"swings": len(r.get("latencies", []))}
                   for r in results], f, indent=1)
    print(f"logs: {args.logs}")


if __name__ == "__main__":
    main()
