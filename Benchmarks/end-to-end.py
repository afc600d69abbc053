#!/usr/bin/env python3
"""End-to-end throughput: wearable-sim load -> private mosquitto -> wearable-gateway.

Starts a private mosquitto on a free loopback port (the repository's
config/mosquitto/conf.d/flow-control.conf limits, no persistence), starts the release
gateway against it, runs `wearable-sim load`, and follows the gateway's retained
gateway/metrics while sampling the CPU time of the broker, the gateway and the simulator
(psutil, benchtools.py; the gateway's threads from /proc). Every process it starts is stopped when it ends (the gateway with SIGTERM,
the others by pid with SIGKILL).

Usage (from the repository root, after `swift build -c release`):
    .build/pytest-venv/bin/python Benchmarks/end-to-end.py --devices 200 --seconds 10
    .build/pytest-venv/bin/python Benchmarks/end-to-end.py --devices 200 --seconds 10 --set pipeline.queueCapacity=64

Linux only (reads /proc). Python 3 with prometheus-client and psutil (Benchmarks/requirements.txt). Figures: docs/performance.md.
"""

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "Benchmarks"))
from benchtools import TICKS, cpu_seconds, free_port, metric_series, metric_totals, stop_processes, wait_for_broker, wait_on, write_broker_config  # noqa: E402,E501


def thread_cpu(pid):
    """{tid: (thread name, CPU seconds)} of a live process."""
    threads = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return threads
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                head, rest = f.read().rsplit(")", 1)
            fields = rest.split()
            threads[tid] = (head.split("(", 1)[1], (int(fields[11]) + int(fields[12])) / TICKS)
        except (OSError, IndexError, ValueError):
            pass
    return threads


def parse_prometheus(text):
    """Sums every series of each metric name (labels dropped)."""
    return metric_totals(text)


def labelled(text, name):
    """Series of one metric as {labels: value}."""
    return metric_series(text, name)


class MetricsFollower:
    """Runs mosquitto_sub on gateway/metrics and keeps (time, totals, text) per message."""

    def __init__(self, port, topic):
        self.samples = []
        self.lock = threading.Condition()
        self.process = subprocess.Popen(
            ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-t", topic, "-F", "%p\n==WG=="],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        # Each message is printed as its payload, then a line "==WG==" ('@' and '%' are
        # escape characters of mosquitto_sub -F).
        current = []
        for line in self.process.stdout:
            if line.rstrip("\n") == "==WG==":
                self._finish(current)
                current = []
            else:
                current.append(line)

    def _finish(self, lines):
        text = "".join(lines)
        with self.lock:
            self.samples.append((time.monotonic(), parse_prometheus(text), text))
            self.lock.notify_all()

    def wait(self, predicate, timeout):
        return wait_on(self.lock, lambda: self.samples[-1] if self.samples and predicate(self.samples[-1][1]) else None,
                       timeout)

    def stop(self):
        self.process.kill()
        self.process.wait()


class CPUSampler:
    """Samples the CPU seconds of named pids every 50 ms."""

    def __init__(self):
        self.pids = {}
        self.samples = []
        self.running = True
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        while self.running:
            now = time.monotonic()
            self.samples.append((now, {name: cpu_seconds(pid) for name, pid in list(self.pids.items())}))
            time.sleep(0.05)

    def used(self, name, start, end):
        """CPU seconds `name` used between two monotonic times (the samples just outside them)."""
        series = [(when, values[name]) for when, values in list(self.samples) if values.get(name) is not None]
        before = [value for when, value in series if when <= start]
        after = [value for when, value in series if when >= end]
        first = before[-1] if before else (series[0][1] if series else None)
        last = after[0] if after else (series[-1][1] if series else None)
        return None if first is None or last is None else last - first


def sim_load_command(args, broker, timeout):
    command = [os.path.join(args.bin, "wearable-sim"), "load", "--broker", broker,
               "--devices", str(args.devices), "--seconds", str(args.seconds),
               "--connections", str(args.connections), "--timeout", str(timeout)]
    if args.streams != "all":
        command += ["--streams", args.streams]
    return command


def relay_baseline(args, broker, port, logs, started, cpu):
    """The simulator and the broker with a C subscriber that only counts: the ceiling of this machine."""
    received = os.path.join(logs, "relay-received.txt")
    consumer = subprocess.Popen(
        ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-q", "1", "-t", "wearables/#", "-F", "%U"],
        stdout=open(received, "w"), stderr=subprocess.DEVNULL)
    started.append(consumer)
    cpu.pids["consumer"] = consumer.pid
    # `load` reads the gateway's retained counter before it starts; a fixed one lets it run
    # without a gateway (it then gives up waiting after --timeout and exits 1).
    subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(port), "-r", "-t", "gateway/metrics",
                    "-m", "gateway_messages_received_total 0"], check=True)
    time.sleep(1)
    command = sim_load_command(args, broker, 1)
    print("$ " + " ".join(consumer.args), flush=True)
    print("$ " + " ".join(command), flush=True)
    sim = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    started.append(sim)
    cpu.pids["simulator"] = sim.pid
    start_wall = start = None
    report = []
    with open(os.path.join(logs, "sim.log"), "w") as sim_log:
        for line in sim.stdout:
            sim_log.write(line)
            if "so far" in line and start is None:
                start, start_wall = time.monotonic(), time.time()
            if line.startswith(("frames ", "publish ")):
                report.append(line.rstrip())
    sim.wait()
    match = re.search(r"frames\s+(\d+)", report[0] if report else "")
    frames = int(match.group(1)) if match else 0

    def count():
        with open(received) as f:
            return sum(1 for _ in f)
    deadline = time.monotonic() + args.catch_up
    while count() < frames and time.monotonic() < deadline:
        time.sleep(0.2)
    end = time.monotonic()
    with open(received) as f:
        stamps = [float(line) for line in f if line.strip()]
    print("\n".join(report))
    if stamps and start_wall:
        elapsed = stamps[-1] - start_wall
        publish_line = next((l for l in report if l.startswith("publish")), "")
        match = re.search(r"([\d.]+) frames/s, ([\d.]+) MiB/s", publish_line)
        mib = float(match.group(2)) / float(match.group(1)) * frames if match else float("nan")
        print(f"relayed           {len(stamps) / elapsed:.0f} frames/s, {mib / elapsed:.1f} MiB/s "
              f"({len(stamps)} of {frames} frames reached mosquitto_sub {elapsed:.2f} s after publishing began)")
        for name in ("broker", "consumer", "simulator"):
            used = cpu.used(name, start, end)
            if used is not None:
                print(f"cpu {name:<13} {used:.2f} s = {used / elapsed:.2f} cores over the run")
    with open(os.path.join(logs, "mosquitto.log")) as f:
        print(f"broker log lines mentioning dropped messages: {sum(1 for line in f if 'dropped' in line)}")
    print(f"logs: {logs}")


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("terminated"))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devices", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--streams", default="batched/accelerometer,batched/device-motion",
                        help="wearable-sim load --streams ('all' for every stream)")
    parser.add_argument("--connections", type=int, default=4, help="publishing connections of wearable-sim load")
    parser.add_argument("--prime", type=float, default=2,
                        help="seconds of real-time `wearable-sim publish` for the same fleet before the load, so the gateway "
                             "has each device's hello, authorization and running workout (0: none; batched frames are then "
                             "decoded and validated but rejected by the access checks)")
    parser.add_argument("--bin", default=os.path.join(REPO, ".build", "release"), help="folder of the release executables")
    parser.add_argument("--metrics-interval", default="0.5", help="gateway metrics.publishInterval (s)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="extra gateway --set (repeatable)")
    parser.add_argument("--catch-up", type=float, default=30,
                        help="seconds to wait, after the simulator is done, for the gateway to count every frame "
                             "(frames the broker dropped never arrive)")
    parser.add_argument("--relay-baseline", action="store_true",
                        help="no gateway: a do-nothing C subscriber (mosquitto_sub -q 1) consumes the same traffic, "
                             "to measure what the simulator and the broker alone sustain on this machine")
    parser.add_argument("--broker-option", action="append", default=[], metavar="LINE",
                        help="extra mosquitto.conf line after the repository's flow-control.conf, e.g. 'max_queued_bytes 0' (repeatable)")
    parser.add_argument("--broker-sys", action="store_true",
                        help="log the broker's $SYS store and drop counters every second to <logs>/sys.log")
    parser.add_argument("--logs", default=None, help="folder for broker/gateway/simulator logs (default: a temporary one)")
    args = parser.parse_args()

    logs = args.logs or tempfile.mkdtemp(prefix="wg-e2e-")
    os.makedirs(logs, exist_ok=True)
    port = free_port()
    broker = f"mqtt://127.0.0.1:{port}"
    config = os.path.join(logs, "mosquitto.conf")
    write_broker_config(config, port, args.broker_option + (["sys_interval 1"] if args.broker_sys else []))

    started = []
    cpu = CPUSampler()
    follower = None
    try:
        mosquitto = subprocess.Popen(["mosquitto", "-c", config], stdout=subprocess.DEVNULL,
                                     stderr=open(os.path.join(logs, "mosquitto.log"), "w"))
        started.append(mosquitto)
        cpu.pids["broker"] = mosquitto.pid
        wait_for_broker(mosquitto, port, os.path.join(logs, "mosquitto.log"))

        if args.broker_sys:
            started.append(subprocess.Popen(
                ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-t", "$SYS/broker/store/messages/#",
                 "-t", "$SYS/broker/publish/messages/dropped", "-t", "$SYS/broker/messages/stored", "-F", "%U %t %p"],
                stdout=open(os.path.join(logs, "sys.log"), "w"), stderr=subprocess.DEVNULL))

        if args.relay_baseline:
            relay_baseline(args, broker, port, logs, started, cpu)
            return

        # The run's own journal, state and recorder files and HTTP port: the shipped defaults
        # (data/ in the working folder) would carry one run's journal and state into the next.
        gateway_command = [os.path.join(args.bin, "wearable-gateway"), "run", "--broker", broker,
                           "--set", f"metrics.publishInterval={args.metrics_interval}", "--set", "registry.file=null",
                           "--set", f"journal.path={os.path.join(logs, 'journal.bin')}",
                           "--set", f"state.path={os.path.join(logs, 'state.sqlite')}",
                           "--set", f"recorder.database={os.path.join(logs, 'recorder.sqlite')}",
                           "--set", "http.listen=127.0.0.1:0"]
        for item in args.set:
            gateway_command += ["--set", item]
        gateway = subprocess.Popen(gateway_command, cwd=REPO, stdout=subprocess.DEVNULL,
                                   stderr=open(os.path.join(logs, "gateway.log"), "w"))
        started.append(gateway)
        cpu.pids["gateway"] = gateway.pid

        follower = MetricsFollower(port, "gateway/metrics")
        if follower.wait(lambda m: "gateway_messages_received_total" in m, 30) is None:
            sys.exit("no gateway/metrics within 30 s; see " + os.path.join(logs, "gateway.log"))

        # Frames processed: gateway_frames_processed_total (counted once a frame's messages are
        # handed to the publisher); accepted + rejected on gateways older than that counter.
        def processed(m):
            if "gateway_frames_processed_total" in m:
                return m["gateway_frames_processed_total"]
            return m.get("gateway_frames_accepted_total", 0) + m.get("gateway_frames_rejected_total", 0)

        if args.prime > 0:
            # `load` skips retained frames (hello), so the fleet announces itself first in real time.
            prime_command = [os.path.join(args.bin, "wearable-sim"), "publish", "--broker", broker,
                             "--devices", str(args.devices), "--duration", str(args.prime), "--log-level", "warning"]
            print("$ " + " ".join(prime_command), flush=True)
            with open(os.path.join(logs, "prime.log"), "w") as prime_log:
                prime = subprocess.Popen(prime_command, cwd=REPO, stdout=prime_log, stderr=subprocess.STDOUT)
                started.append(prime)
                try:
                    prime.wait(timeout=120 + args.prime)
                except subprocess.TimeoutExpired:
                    sys.exit("wearable-sim publish did not finish; see " + os.path.join(logs, "prime.log"))
            primed_at = time.monotonic()
            if follower.wait(lambda m: follower.samples[-1][0] > primed_at + 0.1
                             and processed(m) >= m.get("gateway_messages_received_total", 0), 60) is None:
                sys.exit("the gateway did not settle after priming")

        with follower.lock:
            baseline_index = len(follower.samples) - 1
            _, baseline, baseline_text = follower.samples[-1]
        sim_command = sim_load_command(args, broker, args.catch_up)
        print("$ " + " ".join(gateway_command), flush=True)
        print("$ " + " ".join(sim_command), flush=True)
        sim_log = open(os.path.join(logs, "sim.log"), "w")
        sim = subprocess.Popen(sim_command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        started.append(sim)
        cpu.pids["simulator"] = sim.pid
        publish_start = None
        report = []
        for line in sim.stdout:
            sim_log.write(line)
            if "so far" in line and publish_start is None:
                publish_start = time.monotonic()  # the next thing the tool does is connect and publish
                gateway_threads_before = thread_cpu(gateway.pid)
            if not re.match(r"^\S+T\S+ ", line) and ("frames" in line or "publish" in line or "counted" in line):
                report.append(line.rstrip())
        sim.wait()
        sim_log.close()
        sim_done = time.monotonic()

        frames_line = next((l for l in report if l.strip().startswith("frames")), "")
        match = re.search(r"frames\s+(\d+)", frames_line)
        frames = int(match.group(1)) if match else 0

        # The gateway counts a message when libmosquitto hands it over
        # (gateway_messages_received_total), and again once a worker is done with it.
        target_received = baseline.get("gateway_messages_received_total", 0) + frames
        target_processed = processed(baseline) + frames
        done = follower.wait(lambda m: processed(m) >= target_processed, args.catch_up)
        with follower.lock:
            samples = list(follower.samples)[baseline_index:]
        if done:
            end = done[0]
        else:
            # Not every frame arrived: the rate is over the time until the last one was processed.
            last = processed(samples[-1][1])
            end = next(t for t, m, _ in samples if processed(m) >= last)
        gateway_threads_after = thread_cpu(gateway.pid)
        received_at = next((t for t, m, _ in samples if m.get("gateway_messages_received_total", 0) >= target_received), None)
        final_text = samples[-1][2]
        final = samples[-1][1]
        max_depth = max((m.get("gateway_queue_depth", 0) for _, m, _ in samples), default=0)

        print("\n".join(report))
        elapsed = end - publish_start if publish_start else float("nan")
        publish_line = next((l for l in report if l.strip().startswith("publish")), "")
        match = re.search(r"([\d.]+) frames/s, ([\d.]+) MiB/s", publish_line)
        mib = float(match.group(2)) / float(match.group(1)) * frames if match else float("nan")
        count = processed(final) - processed(baseline)
        print(f"processed         {count / elapsed:.0f} frames/s, {mib * count / frames / elapsed:.1f} MiB/s "
              f"({count:.0f} of {frames} frames processed {elapsed:.2f} s after publishing began; "
              f"resolution {args.metrics_interval} s)")
        if not done:
            print(f"LOST              {frames - count:.0f} frames never reached the gateway (see the broker log below)")
        if received_at:
            print(f"received by       {received_at - publish_start:.2f} s; simulator exited at {sim_done - publish_start:.2f} s")
        for name in ("broker", "gateway", "simulator"):
            used = cpu.used(name, publish_start, end) if publish_start else None
            if used is not None:
                print(f"cpu {name:<13} {used:.2f} s = {used / elapsed:.2f} cores over the run")
        if publish_start:
            # Per thread: libmosquitto's network threads, the Swift concurrency pool (workers,
            # publishing, metrics). Linux keeps the last 15 characters of a thread's name.
            used = sorted(((after - gateway_threads_before.get(tid, (name, 0.0))[1], tid, name)
                           for tid, (name, after) in gateway_threads_after.items()), reverse=True)
            print("gateway threads   " + ", ".join(f"{name}[{tid}] {seconds / elapsed:.2f}" for seconds, tid, name in used
                                                   if seconds > 0.01) + " (cores)")
        for name in ("gateway_messages_received_total", "gateway_handoff_waits_total", "gateway_handoff_blocked_seconds_total",
                     "gateway_handoff_over_capacity_total"):
            value = final.get(name, 0) - baseline.get(name, 0)
            print(f"{name:<40} {value:g}")
        print(f"{'max sampled sum of gateway_queue_depth':<40} {max_depth:g}")
        for name in ("gateway_frames_accepted_total", "gateway_frames_rejected_total"):
            before = labelled(baseline_text, name)
            for labels, value in labelled(final_text, name).items():
                if value - before.get(labels, 0):
                    print(f"{name}{labels} {value - before.get(labels, 0):g}")
        with open(os.path.join(logs, "mosquitto.log")) as f:
            dropped = sum(1 for line in f if "dropped" in line)
        print(f"broker log lines mentioning dropped messages: {dropped}")
        print(f"logs: {logs}")
    finally:
        cpu.running = False
        if follower:
            follower.stop()
        stop_processes(started)
        # The journal ring (256 MiB, sparse) is not a log.
        journal = os.path.join(logs, "journal.bin")
        if os.path.exists(journal):
            os.remove(journal)


if __name__ == "__main__":
    main()
