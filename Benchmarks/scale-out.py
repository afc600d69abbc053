#!/usr/bin/env python3
"""Partitioned scale-out: what each instance receives and spends, for 1, 2 and 4 instances.

For each instance count N (`--instances 1,2,4`), on a fresh private mosquitto (loopback, the
repository's flow-control limits, no persistence): starts N release gateways in
`cluster.mode=partitioned` on a fresh database of the PostgreSQL at --store-url (clustered modes
need `store.backend: postgres`; the shipped configuration, with only what the run needs changed:
instance names, the store, journal files, metrics every 0.5 s, HTTP off, no device registry), waits until
every instance sees N instances, primes the fleet twice with `wearable-sim publish` (the first
run's hellos make each owner subscribe its devices; the second reaches them with the workouts
once every SUBACK is in), then runs `wearable-sim load` and follows every instance's retained
`gateway/instances/{name}/metrics`.

Per instance it reports, over the load phase: received bytes (`gateway_inbound_bytes_total`:
topics and payloads of everything its subscriber connection handed over), frames processed,
and CPU seconds (user + system time, psutil's cpu_times()). The fleet's bytes are the simulator's
own count (topics and payloads of every load frame). The goal of issue #24: every instance's
received bytes <= 1.2 x fleet / N. Prints one table; exits 1 if a goal is missed or frames
were lost.

Usage (from the repository root, after `swift build -c release --scratch-path .build-release`):
    bash Benchmarks/scale-out.sh --bin .build-release/release --instances 1,2,4 --devices 300 --seconds 8
(the wrapper starts a private PostgreSQL with scripts/lib.sh's start_postgres and stops it at
the end), or with a PostgreSQL of your own, whose user may create databases:
    .build/pytest-venv/bin/python Benchmarks/scale-out.py --store-url postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable ...

`wearable-sim publish` (the priming) opens one connection per device, four descriptors each; it
raises its soft open-file limit to the hard one when it needs to (a shell's default soft limit
of 1,024 would stop it at about 250 devices) and says so, naming --devices, when even the hard
limit is too low.

Bounded: every wait has a timeout and the whole run stops after --deadline seconds. Linux only
(reads /proc). Python 3 with prometheus-client and psutil (Benchmarks/requirements.txt; scale-out.sh installs them). Figures:
docs/performance.md, docs/scale-out.md.
"""

import argparse
import importlib.util
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("end_to_end", os.path.join(REPO, "Benchmarks", "end-to-end.py"))
e2e = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(e2e)
from benchtools import metric_samples  # noqa: E402 (on the path end-to-end.py set)

GOAL = 1.2


def run_totals(text, name):
    """{run: {sample name: total}} of one instance's metrics text: its own run's series under
    `name`, a stand-in's (labelled gateway_stand_in, run in that instance's process for a dead
    one) under "{dead name}-stand-in"."""
    runs = {name: {}}
    for sample, labels, value in metric_samples(text):
        run = f"{labels.get('gateway_instance', '?')}-stand-in" if "gateway_stand_in" in labels else name
        totals = runs.setdefault(run, {})
        totals[sample] = totals.get(sample, 0.0) + value
    return runs


class InstanceMetrics:
    """mosquitto_sub on gateway/instances/+/metrics: the latest totals per run (an instance's own,
    and "{name}-stand-in" for a stand-in an instance runs)."""

    def __init__(self, port):
        self.latest = {}
        self.publications = {}
        self.lock = threading.Condition()
        self.process = subprocess.Popen(
            ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-t", "gateway/instances/+/metrics", "-F", "==T== %t\n%p\n==WG=="],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        topic, current = None, []
        for line in self.process.stdout:
            stripped = line.rstrip("\n")
            if stripped.startswith("==T== "):
                topic, current = stripped[6:], []
            elif stripped == "==WG==":
                name = topic.split("/")[2] if topic else "?"
                runs = run_totals("".join(current), name)
                with self.lock:
                    self.latest.update(runs)
                    self.publications[name] = self.publications.get(name, 0) + 1
                    self.lock.notify_all()
            else:
                current.append(line)

    def wait(self, predicate, timeout):
        """The latest totals once `predicate` holds for them; None after `timeout` seconds."""
        return e2e.wait_on(self.lock, lambda: dict(self.latest) if predicate(self.latest) else None, timeout)

    def next(self, timeout=5):
        """The totals after every instance published once more."""
        with self.lock:
            marks = dict(self.publications)
        return self.wait(lambda latest: all(self.publications.get(n, 0) > mark for n, mark in marks.items()), timeout)

    def stop(self):
        self.process.kill()
        self.process.wait()


def total(latest, name):
    return sum(m.get(name, 0) for m in latest.values())


def gateway_command(binaries, broker, name, store_url, journal):
    """A partitioned instance `name` on `store_url`: the shipped configuration with metrics every
    0.5 s, HTTP off and no device registry."""
    return [os.path.join(binaries, "wearable-gateway"), "run", "--broker", broker,
            "--set", "metrics.publishInterval=0.5", "--set", "registry.file=null", "--set", "http.listen=off",
            "--set", "cluster.mode=partitioned", "--set", f"cluster.instance={name}",
            "--set", "store.backend=postgres", "--set", f"store.url={store_url}", "--set", f"journal.path={journal}"]


def make_database(server_url, name):
    """Creates database `name` on the server of `server_url` (psql); returns its store.url."""
    subprocess.run(["psql", server_url, "-q", "-v", "ON_ERROR_STOP=1", "-c", f"CREATE DATABASE {name}"], check=True, timeout=60,
                   stdout=subprocess.DEVNULL)
    parts = urllib.parse.urlsplit(server_url)
    return urllib.parse.urlunsplit(parts._replace(path="/" + name))


def drop_database(server_url, name):
    """Drops database `name` (best effort: the run's results are in already)."""
    subprocess.run(["psql", server_url, "-q", "-c", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], timeout=60,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run(count, args, logs, deadline):
    """One instance count: returns (rows, fleet_bytes, frames, processed)."""
    run_logs = os.path.join(logs, f"n{count}")
    os.makedirs(run_logs, exist_ok=True)
    port = e2e.free_port()
    broker = f"mqtt://127.0.0.1:{port}"
    config = os.path.join(run_logs, "mosquitto.conf")
    e2e.write_broker_config(config, port)
    names = [f"bench-{i}" for i in range(count)]
    started, follower = [], None
    cpu = e2e.CPUSampler()
    remaining = lambda: max(1.0, deadline - time.monotonic())
    database = f"wg_scale_n{count}_{os.getpid()}"
    store_url = make_database(args.store_url, database)
    try:
        mosquitto = subprocess.Popen(["mosquitto", "-c", config], stdout=subprocess.DEVNULL,
                                     stderr=open(os.path.join(run_logs, "mosquitto.log"), "w"))
        started.append(mosquitto)
        e2e.wait_for_broker(mosquitto, port, os.path.join(run_logs, "mosquitto.log"))
        follower = InstanceMetrics(port)
        gateways = {}
        for name in names:
            command = gateway_command(args.bin, broker, name, store_url, os.path.join(run_logs, f"{name}-journal.bin"))
            gateway = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL,
                                       stderr=open(os.path.join(run_logs, f"{name}.log"), "w"))
            started.append(gateway)
            gateways[name] = gateway.pid
            cpu.pids[name] = gateway.pid
        if count == args.first:
            print("$ " + " ".join(command), flush=True)
        # Settled: the 1,024 ownership partitions held over the instances and none warming up
        # (the parser sums a family's series: held + warming is 1,024 exactly then).
        if follower.wait(lambda latest: all(n in latest for n in names) and total(latest, "gateway_cluster_partitions") == 1024,
                         min(60, remaining())) is None:
            sys.exit(f"N={count}: the partitions did not settle over {count} instances; logs in {run_logs}")

        def subscribed(latest):
            return all(n in latest for n in names) and total(latest, "gateway_cluster_device_subscriptions") >= args.devices \
                and total(latest, "gateway_cluster_subscriptions_pending") == 0

        prime = [os.path.join(args.bin, "wearable-sim"), "publish", "--broker", broker, "--devices", str(args.devices),
                 "--duration", str(args.prime), "--log-level", "warning"]
        for round in (1, 2):
            subprocess.run(prime, cwd=REPO, stdout=open(os.path.join(run_logs, f"prime-{round}.log"), "w"),
                           stderr=subprocess.STDOUT, timeout=min(180, remaining()))
            if round == 1 and follower.wait(subscribed, min(60, remaining())) is None:
                sys.exit(f"N={count}: the owners did not subscribe all {args.devices} devices; logs in {run_logs}")

        def settled(latest):
            return all(n in latest for n in names) and total(latest, "gateway_frames_processed_total") + total(
                latest, "gateway_cluster_frames_not_owned_total") >= total(latest, "gateway_messages_received_total")

        if follower.wait(settled, min(60, remaining())) is None:
            sys.exit(f"N={count}: the gateways did not settle after priming")
        baseline = follower.next(min(5, remaining())) or dict(follower.latest)

        # `load` waits for a retained gateway/metrics, which clustered instances do not publish:
        # a fixed one lets it run; it gives up waiting after --timeout 1 (exit 1), we count ourselves.
        subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(port), "-r", "-t", "gateway/metrics",
                        "-m", "gateway_messages_received_total 0"], check=True, timeout=30)
        command = e2e.sim_load_command(argparse.Namespace(bin=args.bin, devices=args.devices, seconds=args.seconds,
                                                          connections=args.connections, streams="batched/accelerometer,batched/device-motion"),
                                       broker, 1)
        if count == args.first:
            print("$ " + " ".join(command), flush=True)
        start = time.monotonic()
        sim = subprocess.run(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=min(600, remaining()))
        with open(os.path.join(run_logs, "sim.log"), "w") as f:
            f.write(sim.stdout)
        fleet = re.search(r"fleet bytes\s+(\d+) \(topics and payloads of (\d+) frames\)", sim.stdout)
        if not fleet:
            sys.exit(f"N={count}: no fleet byte count in the simulator's output; see {run_logs}/sim.log")
        fleet_bytes, frames = int(fleet.group(1)), int(fleet.group(2))
        target = total(baseline, "gateway_frames_processed_total") + frames
        final = follower.wait(lambda latest: total(latest, "gateway_frames_processed_total") >= target, min(args.catch_up, remaining()))
        end = time.monotonic()
        final = follower.next(min(5, remaining())) or final or dict(follower.latest)
        processed = total(final, "gateway_frames_processed_total") - total(baseline, "gateway_frames_processed_total")
        rows = []
        for name in names:
            delta = lambda metric: final.get(name, {}).get(metric, 0) - baseline.get(name, {}).get(metric, 0)
            rows.append({
                "instance": name,
                "bytes": delta("gateway_inbound_bytes_total"),
                "processed": delta("gateway_frames_processed_total"),
                "not_owned": delta("gateway_cluster_frames_not_owned_total"),
                "subscriptions": final.get(name, {}).get("gateway_cluster_device_subscriptions", 0),
                "cpu": cpu.used(name, start, end) or 0.0,
            })
        return rows, fleet_bytes, frames, processed
    finally:
        cpu.running = False
        if follower:
            follower.stop()
        e2e.stop_processes(started)
        drop_database(args.store_url, database)


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("terminated"))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--instances", default="1,2,4", help="comma-separated instance counts (default 1,2,4)")
    parser.add_argument("--devices", type=int, default=300)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--prime", type=float, default=2)
    parser.add_argument("--bin", default=os.path.join(REPO, ".build-release", "release"))
    parser.add_argument("--catch-up", type=float, default=120)
    parser.add_argument("--deadline", type=float, default=1200, help="seconds after which the whole run stops")
    parser.add_argument("--logs", default=None)
    parser.add_argument("--store-url", default=os.environ.get("WG_SCALE_STORE_URL"),
                        help="PostgreSQL server whose user may create databases (one per instance count; default $WG_SCALE_STORE_URL; "
                             "Benchmarks/scale-out.sh starts a private one)")
    args = parser.parse_args()
    if not args.store_url:
        parser.error("--store-url is required: partitioned mode runs on store.backend postgres (or run Benchmarks/scale-out.sh)")
    counts = [int(c) for c in args.instances.split(",")]
    args.first = counts[0]
    logs = args.logs or tempfile.mkdtemp(prefix="wg-scale-")
    deadline = time.monotonic() + args.deadline

    results = []
    for count in counts:
        if time.monotonic() >= deadline:
            sys.exit(f"--deadline {args.deadline} s reached before N={count}")
        results.append((count,) + run(count, args, logs, deadline))

    failed = False
    print()
    print(f"{args.devices} watches x {args.seconds} s of batched IMU (wearable-sim load, seed 1); binaries {args.bin}; logs in {logs}")
    print()
    print("| N | instance | devices subscribed | frames processed | received MiB | received / (fleet / N) | goal <= 1.2 | CPU s |")
    print("|---|---|---|---|---|---|---|---|")
    for count, rows, fleet_bytes, frames, processed in results:
        share = fleet_bytes / count
        for row in rows:
            ratio = row["bytes"] / share
            ok = ratio <= GOAL
            failed |= not ok
            print(f"| {count} | {row['instance']} | {row['subscriptions']:.0f} | {row['processed']:.0f} | {row['bytes'] / 1048576:.1f} | "
                  f"{ratio:.2f} | {'met' if ok else 'MISSED'} | {row['cpu']:.2f} |")
        lost = frames - processed
        failed |= lost != 0
        cpu = sum(row["cpu"] for row in rows)
        print(f"| {count} | all | | {processed:.0f} of {frames} | {sum(r['bytes'] for r in rows) / 1048576:.1f} "
              f"(fleet {fleet_bytes / 1048576:.1f}) | | {'every frame once' if lost == 0 else f'{lost:+.0f} frames'} | {cpu:.2f} |")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
