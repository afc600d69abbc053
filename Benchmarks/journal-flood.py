#!/usr/bin/env python3
"""The journal under one device's garbage (docs/reliability.md, "What holds a record").

A private mosquitto and the debug gateway with config/gateway.yml and a small ring
(`journal.sizeBytes` 1048576, `pipeline.maxPayloadBytes` 65536, device snapshots on). One device
publishes 60 KB garbage at QoS 1 on a state-bearing stream at a fixed rate; after 600 frames a
calm device publishes 40 presence changes. Reported as JSON: frames sent, frames the gateway
rejected by two seconds after the last, seconds the subscriber waited for the journal, frames
that bypassed it, and the calm device's presence changes published.

Usage (from the repository root, after `swift build`):
    .build/pytest-venv/bin/pip install -q -r Benchmarks/requirements.txt
    .build/pytest-venv/bin/python Benchmarks/journal-flood.py --seconds 15 --rate 200
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

import paho.mqtt.client as mqtt

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "Benchmarks"))
from benchtools import free_port, metric_totals, stop_processes, wait_for_broker, write_broker_config  # noqa: E402


def connected(port, client_id):
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id)
    client.connect("127.0.0.1", port)
    client.loop_start()
    return client


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--rate", type=float, default=200, help="garbage frames per second")
    parser.add_argument("--stream", default="submersion/measurement")
    parser.add_argument("--bin", default=os.path.join(REPO, ".build", "debug"))
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="journal-flood-")
    port, http = free_port(), free_port()
    config = os.path.join(work, "mosquitto.conf")
    write_broker_config(config, port)
    processes = []
    try:
        broker_log = os.path.join(work, "broker.log")
        processes.append(subprocess.Popen(["mosquitto", "-c", config], stderr=open(broker_log, "w")))
        wait_for_broker(processes[0], port, broker_log)
        data = os.path.join(work, "data")
        settings = {"http.listen": f"127.0.0.1:{http}", "registry.file": "null", "journal.sizeBytes": "1048576",
                    "pipeline.maxPayloadBytes": "65536", "journal.path": f"{data}/journal.bin", "state.path": f"{data}/state.sqlite",
                    "recorder.database": f"{data}/recorder.sqlite"}
        command = [os.path.join(args.bin, "wearable-gateway"), "run", "--config", "config/gateway.yml", "--broker", f"mqtt://127.0.0.1:{port}"]
        for key, value in settings.items():
            command += ["--set", f"{key}={value}"]
        processes.append(subprocess.Popen(command, cwd=REPO, stderr=open(os.path.join(work, "gateway.log"), "w")))

        def metrics():
            return metric_totals(urllib.request.urlopen(f"http://127.0.0.1:{http}/metrics", timeout=5).read().decode())

        deadline = time.monotonic() + 30
        while True:
            try:
                before = metrics()
                break
            except OSError:
                if time.monotonic() > deadline:
                    sys.exit(f"the gateway did not answer on {http}; see {work}/gateway.log")
                time.sleep(0.1)
        seen = set()
        listener = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="flood-listener")
        listener.on_message = lambda client, userdata, message: seen.add(json.loads(message.payload)["date"])
        listener.connect("127.0.0.1", port)
        listener.subscribe("gateway/calm-1/connection", 1)
        listener.loop_start()
        flooder, calm = connected(port, "flooder"), connected(port, "calm")
        garbage = b"x" * 60_000
        start, sent = time.monotonic(), 0
        while time.monotonic() - start < args.seconds:
            flooder.publish(f"wearables/flood-1/{args.stream}", garbage, qos=1)
            sent += 1
            if sent == 600:
                for index in range(40):
                    state = {"state": "online" if index % 2 == 0 else "offline", "date": 1_800_000_000 + index}
                    calm.publish("wearables/calm-1/status", json.dumps(state), qos=1)
            time.sleep(max(0.0, start + sent / args.rate - time.monotonic()))
        elapsed = time.monotonic() - start
        time.sleep(2)
        after = metrics()
        for client in (flooder, calm, listener):
            client.loop_stop()
            client.disconnect()

        def delta(name):
            return after.get(name, 0.0) - before.get(name, 0.0)

        print(json.dumps({
            "sent": sent, "seconds": round(elapsed, 1), "rejected within 2 s of the last": delta("gateway_frames_rejected_total"),
            "journal wait seconds": round(delta("gateway_journal_wait_seconds_total"), 2),
            "bypassed": delta("gateway_journal_bypassed_total"), "calm presence changes published": len(seen)}))
    finally:
        stop_processes(processes)


if __name__ == "__main__":
    main()
