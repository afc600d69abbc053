#!/usr/bin/env python3
"""Outbound QoS 1 rate: how fast the gateway publishes, measured where nothing else limits it.

1. A private mosquitto (the repository's flow-control.conf limits, no persistence) and the
   release gateway (`retained.reannounceRate` unlimited, HTTP metrics on a free port).
2. Priming, a reconnect storm: loadgen.c (Benchmarks/relay-ratio) publishes every device's hello,
   status, authorization and running workout at once; the gateway answers each device with its
   retained availability and connection. Reported: frames processed per second, peak resident.
3. The broker is killed and restarted on the same port without persistence. The gateway's
   publisher reconnects without a session and re-announces every retained topic it holds, as
   fast as the broker acknowledges (QoS 1). Reported: messages handed over per second (the
   gateway's `gateway_retained_reannounced_total`, read every 0.1 s over HTTP), the rate at which
   a C subscriber (`mosquitto_sub -q 1`) received them, and the CPU of gateway and broker.

Usage (from the repository root; builds what it needs unless OUTBOUND_RATE_SKIP_BUILD=1):
    .build/pytest-venv/bin/python Benchmarks/outbound-rate.py --devices 100000

Linux only (reads /proc). Python 3 with prometheus-client and psutil (Benchmarks/requirements.txt). Figures: docs/reliability.md.
"""

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "Benchmarks"))
from benchtools import cpu_seconds, free_port, metric_totals, stop_processes, wait_for_broker, write_broker_config  # noqa: E402


def metric(text, name):
    """Sum of every series of one metric in Prometheus text."""
    return metric_totals(text).get(name, 0.0)


def scrape(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.read().decode()
    except OSError:
        return None


def resident_mb(pid, field="VmHWM"):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def start_broker(config, port, logs, name):
    broker = subprocess.Popen(["mosquitto", "-c", config], stdout=subprocess.DEVNULL,
                              stderr=open(os.path.join(logs, name), "w"))
    wait_for_broker(broker, port, os.path.join(logs, name))
    return broker


def wait_until(predicate, timeout, interval=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    return None


def build(bin_dir, work):
    if os.environ.get("OUTBOUND_RATE_SKIP_BUILD") != "1":
        for product in ("wearable-gateway", "wearable-sim"):
            print(f"$ swift build -c release --product {product}", flush=True)
            subprocess.run(["swift", "build", "-c", "release", "--product", product], cwd=REPO, check=True,
                           stdout=subprocess.DEVNULL)
    loadgen = os.path.join(work, "loadgen")
    subprocess.run(["cc", "-O2", "-Wall", "-o", loadgen, os.path.join(REPO, "Benchmarks", "relay-ratio", "loadgen.c"),
                    "-lmosquitto", "-lpthread"], check=True)
    frames = os.path.join(work, "frames")
    subprocess.run([os.path.join(bin_dir, "wearable-sim"), "generate", "--watches", "20", "--seconds", "1",
                    "--output", frames], check=True, stdout=subprocess.DEVNULL)
    return loadgen, os.path.join(frames, "frames.bin")


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("terminated"))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devices", type=int, default=100_000)
    parser.add_argument("--bin", default=os.path.join(REPO, ".build", "release"), help="folder of the release executables")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="extra gateway --set (repeatable)")
    parser.add_argument("--broker-option", action="append", default=["max_queued_messages 0"], metavar="LINE",
                        help="extra mosquitto.conf line after the repository's flow-control.conf (repeatable). "
                             "Default: 'max_queued_messages 0', because priming publishes four frames per device at once "
                             "with no flow control, more than the repository's bound of 100,000 queued messages for "
                             "the gateway's subscription (the broker would drop the rest)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds to wait for each phase")
    parser.add_argument("--logs", default=None, help="folder for logs (default: a temporary one)")
    args = parser.parse_args()

    logs = args.logs or tempfile.mkdtemp(prefix="wg-outbound-")
    os.makedirs(logs, exist_ok=True)
    loadgen, frames = build(args.bin, logs)
    port, http_port = free_port(), free_port()
    config = os.path.join(logs, "mosquitto.conf")
    write_broker_config(config, port, args.broker_option)
    metrics_url = f"http://127.0.0.1:{http_port}/metrics"

    started = []
    try:
        broker = start_broker(config, port, logs, "mosquitto-1.log")
        started.append(broker)
        gateway_command = [os.path.join(args.bin, "wearable-gateway"), "run", "--broker", f"mqtt://127.0.0.1:{port}",
                           "--set", "registry.file=null", "--set", "retained.reannounceRate=1000000",
                           "--set", f"http.listen=127.0.0.1:{http_port}", "--set", "mqtt.reconnect.maxDelay=0.5",
                           "--set", f"journal.path={os.path.join(logs, 'journal')}",
                           "--set", f"state.path={os.path.join(logs, 'state.sqlite')}",
                           "--set", f"recorder.database={os.path.join(logs, 'recorder.sqlite')}"]
        for item in args.set:
            gateway_command += ["--set", item]
        print("$ " + " ".join(gateway_command), flush=True)
        gateway = subprocess.Popen(gateway_command, cwd=REPO, stdout=subprocess.DEVNULL,
                                   stderr=open(os.path.join(logs, "gateway.log"), "w"))
        started.append(gateway)
        if not wait_until(lambda: scrape(metrics_url), 60):
            sys.exit("no /metrics from the gateway; see " + os.path.join(logs, "gateway.log"))

        # Phase 1: the storm of prime frames.
        load_command = [loadgen, "--port", str(port), "--frames", frames, "--watches", str(args.devices), "--seconds", "1"]
        print("$ " + " ".join(load_command), flush=True)
        start = time.monotonic()
        load = subprocess.Popen(load_command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=open(os.path.join(logs, "loadgen.log"), "w"), text=True)
        started.append(load)
        for line in load.stdout:
            if line.startswith("primed"):
                break
        primes = 4 * args.devices

        def primed():
            text = scrape(metrics_url)
            return text if text and metric(text, "gateway_frames_processed_total") >= primes else None
        text = wait_until(primed, args.timeout)
        if not text:
            with open(os.path.join(logs, "mosquitto-1.log")) as f:
                dropped = sum(1 for line in f if "dropped" in line)
            sys.exit(f"the gateway did not process every prime frame (broker log lines about dropped messages: {dropped}); see {logs}")
        elapsed = time.monotonic() - start
        load.kill()
        retained = int(metric(text, "gateway_events_published_total"))
        print(f"storm             {primes} prime frames of {args.devices} devices processed in {elapsed:.1f} s "
              f"({primes / elapsed:.0f} frames/s, {args.devices / elapsed:.0f} devices/s); "
              f"gateway peak resident {resident_mb(gateway.pid):.0f} MB")

        # Phase 2: broker restart, re-announce.
        def steady():
            first = scrape(metrics_url)
            time.sleep(1)
            second = scrape(metrics_url)
            return second if first and second and metric(first, "gateway_events_published_total") == metric(second, "gateway_events_published_total") else None
        text = wait_until(steady, args.timeout, 0)
        before = metric(text, "gateway_retained_reannounced_total")
        broker.kill()
        broker.wait()
        broker = start_broker(config, port, logs, "mosquitto-2.log")
        started.append(broker)
        received = os.path.join(logs, "received.txt")
        subscriber = subprocess.Popen(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-q", "1", "-t", "gateway/+/+",
                                       "-T", "gateway/instances/+", "-F", "%U"],
                                      stdout=open(received, "w"), stderr=subprocess.DEVNULL)
        started.append(subscriber)
        samples = []
        cpu = []

        def sample():
            text = scrape(metrics_url)
            if text is None:
                return None
            now = time.monotonic()
            samples.append((now, metric(text, "gateway_retained_reannounced_total") - before))
            cpu.append((now, cpu_seconds(gateway.pid), cpu_seconds(broker.pid)))
            return samples[-1][1] > 0 and len(samples) > 2 and samples[-1][1] == samples[-2][1] == samples[-3][1]
        if not wait_until(sample, args.timeout, 0.1):
            sys.exit("the gateway did not re-announce; see " + logs)
        count = samples[-1][1]
        first = next(t for t, n in samples if n > 0)
        last = next(t for t, n in samples if n >= count)
        # The sample before the first non-zero one bounds the start from below.
        start_bound = max((t for t, n in samples if n == 0), default=first)
        duration = last - start_bound
        wait_until(lambda: sum(1 for _ in open(received)) >= count, 30, 0.2)
        with open(received) as f:
            stamps = [float(line) for line in f if line.strip()]
        gateway_cpu = cpu[-1][1] - cpu[0][1]
        broker_cpu = cpu[-1][2] - cpu[0][2]
        print(f"re-announced      {count:.0f} retained messages (of {retained} published while priming) in "
              f"{duration:.2f} s: {count / duration:.0f} messages/s handed over and acknowledged-windowed (QoS 1)")
        if stamps:
            span = stamps[-1] - stamps[0]
            print(f"received          {len(stamps)} by mosquitto_sub -q 1 in {span:.2f} s: {len(stamps) / span:.0f} messages/s")
        print(f"cpu               gateway {gateway_cpu:.2f} s ({gateway_cpu / count * 1e6:.1f} µs per message), "
              f"broker {broker_cpu:.2f} s, over {cpu[-1][0] - cpu[0][0]:.1f} s")
        print(f"logs: {logs}")
    finally:
        stop_processes(started)


if __name__ == "__main__":
    main()
