#!/usr/bin/env python3
"""Partitioned scale-out throughput: wearable-sim load -> private mosquitto -> N wearable-gateway instances.

Starts a private mosquitto (the repository's flow-control limits, no persistence) and N release
gateways in `cluster.mode=partitioned` on it, waits until every instance sees N instances in
force, primes the fleet (hello, authorization, running workout), then runs `wearable-sim load`
and follows every instance's retained `gateway/instances/{name}/metrics`. Each frame is
delivered to every instance (N x fan-out at the broker) and processed by its owner only, so the
sum of `gateway_frames_processed_total` over the instances must reach the frames sent.

Usage (from the repository root, after `swift build -c release`):
    python3 Benchmarks/scale-out.py --instances 2 --devices 300 --seconds 20

Linux only (reads /proc). Python 3 standard library only. Figures: docs/scale-out.md.
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

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("end_to_end", os.path.join(REPO, "Benchmarks", "end-to-end.py"))
e2e = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(e2e)


class InstanceMetrics:
    """mosquitto_sub on gateway/instances/+/metrics: the latest totals per instance, with arrival times."""

    def __init__(self, port):
        self.latest = {}
        self.history = []
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
                totals = e2e.parse_prometheus("".join(current))
                with self.lock:
                    self.latest[name] = totals
                    self.history.append((time.monotonic(), dict(self.latest)))
                    self.lock.notify_all()
            else:
                current.append(line)

    def wait(self, predicate, timeout):
        return e2e.wait_on(self.lock, lambda: (time.monotonic(), dict(self.latest)) if predicate(self.latest) else None, timeout)

    def stop(self):
        self.process.kill()
        self.process.wait()


def total(latest, name):
    return sum(m.get(name, 0) for m in latest.values())


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("terminated"))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--instances", type=int, default=2)
    parser.add_argument("--devices", type=int, default=200)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--prime", type=float, default=2)
    parser.add_argument("--bin", default=os.path.join(REPO, ".build", "release"))
    parser.add_argument("--catch-up", type=float, default=60)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="extra gateway --set (repeatable)")
    parser.add_argument("--logs", default=None)
    args = parser.parse_args()

    logs = args.logs or tempfile.mkdtemp(prefix="wg-scale-")
    os.makedirs(logs, exist_ok=True)
    port = e2e.free_port()
    broker = f"mqtt://127.0.0.1:{port}"
    config = os.path.join(logs, "mosquitto.conf")
    e2e.write_broker_config(config, port)
    names = [f"bench-{i}" for i in range(args.instances)]
    started = []
    cpu = e2e.CPUSampler()
    follower = None
    try:
        mosquitto = subprocess.Popen(["mosquitto", "-c", config], stdout=subprocess.DEVNULL,
                                     stderr=open(os.path.join(logs, "mosquitto.log"), "w"))
        started.append(mosquitto)
        cpu.pids["broker"] = mosquitto.pid
        e2e.wait_for_broker(mosquitto, port, os.path.join(logs, "mosquitto.log"))
        follower = InstanceMetrics(port)
        for name in names:
            command = [os.path.join(args.bin, "wearable-gateway"), "run", "--broker", broker,
                       "--set", "metrics.publishInterval=0.5", "--set", "registry.file=null", "--set", "http.listen=off",
                       "--set", "cluster.mode=partitioned", "--set", f"cluster.instance={name}",
                       "--set", f"journal.path={os.path.join(logs, 'journal.bin')}",
                       "--set", f"recorder.database={os.path.join(logs, 'recorder.sqlite')}"]
            for item in args.set:
                command += ["--set", item]
            gateway = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL,
                                       stderr=open(os.path.join(logs, f"{name}.log"), "w"))
            started.append(gateway)
            cpu.pids[name] = gateway.pid
        print("$ " + " ".join(started[-1].args), flush=True)
        if follower.wait(lambda latest: all(latest.get(n, {}).get("gateway_cluster_live_instances") == args.instances for n in names), 60) is None:
            sys.exit(f"the instances did not all see {args.instances} instances; logs in {logs}")

        def settled(latest):
            return all(n in latest for n in names) and total(latest, "gateway_frames_processed_total") + total(
                latest, "gateway_cluster_frames_not_owned_total") >= total(latest, "gateway_messages_received_total")

        if args.prime > 0:
            prime = [os.path.join(args.bin, "wearable-sim"), "publish", "--broker", broker, "--devices", str(args.devices),
                     "--duration", str(args.prime), "--log-level", "warning"]
            print("$ " + " ".join(prime), flush=True)
            subprocess.run(prime, cwd=REPO, stdout=open(os.path.join(logs, "prime.log"), "w"), stderr=subprocess.STDOUT, timeout=180)
            time.sleep(1.5)  # let the last metrics interval pass before reading the baseline
            if follower.wait(settled, 60) is None:
                sys.exit("the gateways did not settle after priming")
        _, baseline = follower.wait(lambda latest: True, 1)

        # `load` waits for a retained gateway/metrics, which clustered instances do not publish:
        # a fixed one lets it run; it gives up waiting after --timeout 1 (exit 1), we count ourselves.
        subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(port), "-r", "-t", "gateway/metrics",
                        "-m", "gateway_messages_received_total 0"], check=True)
        command = e2e.sim_load_command(argparse.Namespace(bin=args.bin, devices=args.devices, seconds=args.seconds,
                                                          connections=args.connections, streams="batched/accelerometer,batched/device-motion"),
                                       broker, 1)
        print("$ " + " ".join(command), flush=True)
        sim = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        started.append(sim)
        cpu.pids["simulator"] = sim.pid
        publish_start, report = None, []
        with open(os.path.join(logs, "sim.log"), "w") as sim_log:
            for line in sim.stdout:
                sim_log.write(line)
                if "so far" in line and publish_start is None:
                    publish_start = time.monotonic()
                if line.strip().startswith(("frames", "publish")):
                    report.append(line.rstrip())
        sim.wait()
        match = re.search(r"frames\s+(\d+)", next((l for l in report if l.strip().startswith("frames")), ""))
        frames = int(match.group(1)) if match else 0
        target = total(baseline, "gateway_frames_processed_total") + frames
        done = follower.wait(lambda latest: total(latest, "gateway_frames_processed_total") >= target, args.catch_up)
        end, final = done if done else (time.monotonic(), dict(follower.latest))
        elapsed = end - publish_start
        count = total(final, "gateway_frames_processed_total") - total(baseline, "gateway_frames_processed_total")
        print("\n".join(report))
        print(f"instances         {args.instances} ({', '.join(names)})")
        print(f"processed         {count / elapsed:.0f} frames/s = {count / elapsed / 2:.0f} watches in real time "
              f"({count:.0f} of {frames} frames, each by one instance, {elapsed:.2f} s after publishing began)")
        if not done:
            print(f"LOST              {frames - count:.0f} frames were not processed within {args.catch_up} s")
        for name in names:
            part = final.get(name, {})
            base = baseline.get(name, {})
            print(f"  {name}: processed {part.get('gateway_frames_processed_total', 0) - base.get('gateway_frames_processed_total', 0):.0f}, "
                  f"received {part.get('gateway_messages_received_total', 0) - base.get('gateway_messages_received_total', 0):.0f}, "
                  f"not owned {part.get('gateway_cluster_frames_not_owned_total', 0) - base.get('gateway_cluster_frames_not_owned_total', 0):.0f}")
        for name in ["broker", "simulator"] + names:
            used = cpu.used(name, publish_start, end)
            if used is not None:
                print(f"cpu {name:<13} {used:.2f} s = {used / elapsed:.2f} cores over the run")
        with open(os.path.join(logs, "mosquitto.log")) as f:
            print(f"broker log lines mentioning dropped messages: {sum(1 for line in f if 'dropped' in line)}")
        print(f"logs: {logs}")
    finally:
        cpu.running = False
        if follower:
            follower.stop()
        e2e.stop_processes(started)


if __name__ == "__main__":
    main()
