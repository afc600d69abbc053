#!/usr/bin/env python3
"""Partitioned take-over at scale: kill -9 of one of --instances gateways over --devices devices.

On a fresh private mosquitto (loopback, the repository's flow-control limits, no persistence)
and a fresh database of the PostgreSQL at --store-url, starts --instances release gateways in
`cluster.mode=partitioned` (instance names bench-0, bench-1, ...; metrics every 0.5 s, HTTP off,
no device registry), waits until the 1,024 ownership partitions are held, then:

1. **fleet**: every device says a retained hello (paho-mqtt, QoS 1, over 4 connections); waits
   until the instances subscribed all of them (`gateway_cluster_device_subscriptions`, none
   pending), then until their workers processed every hello (`gateway_queue_depth` and
   `gateway_buffered_bytes` 0), and counts the devices in the store;
2. **steady state**: --streaming of the devices send a status every second (the rest stay idle)
   for --steady seconds: the store's transactions per second (`pg_stat_database.xact_commit`),
   rows written per second (`pg_stat_database` tup_inserted + tup_updated), and the snapshots the
   instances write per second (`gateway_device_snapshots_written_total`);
3. **kill -9** of the last instance: the time until every partition it held is held by a live
   run in the store (its stand-in, run by the survivor that adopted it, or a survivor; polled
   every 0.1 s), the time until none is held under its name any more (the stand-in handed them
   on), the time until the survivors subscribed every device again, the lease changes (sum of
   the partitions' epochs, after minus before) against the partitions it held (two each: the
   stand-in continues the dead run's leases under the next epoch, another run publishing, then
   hands them on, the one change of holder), and the same store rates over the take-over.

In the steady state and over the take-over it also reports the mean round trip of the
instances' heartbeats (`gateway_cluster_heartbeat_seconds`), and over the take-over the messages
the stand-in and the survivors received (retained messages replayed to a subscription count here).

Prints one Markdown table (docs/scale-out.md, *Cost model*). Exits 1 when the take-over missed
`cluster.leaseTime` + 2 s, when one of its partitions changed hands more than once (its epoch
moved by more than two: the adoption's and the hand-over's), or when the
survivors did not subscribe every device again.

Usage (from the repository root, after `swift build -c release --scratch-path .build-release`):
    bash Benchmarks/scale-out.sh --takeover --devices 100000 --instances 4
(scale-out.sh starts a private PostgreSQL and passes --store-url), or with a PostgreSQL of your
own whose user may create databases:
    .build/pytest-venv/bin/python Benchmarks/takeover.py --store-url postgres://... --devices 100000

Bounded: every wait has a timeout and the whole run stops after --deadline seconds. Linux only.
Python 3 with prometheus-client and paho-mqtt (Benchmarks/requirements.txt).
"""

import argparse
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

import paho.mqtt.client as mqtt

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(REPO, "Benchmarks", file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


e2e = load("end_to_end", "end-to-end.py")
scale = load("scale_out", "scale-out.py")

LEASE_TIME = 6.0


def sql(url, query):
    """One value row of `query` (psql -At), as strings."""
    out = subprocess.run(["psql", url, "-At", "-F", " ", "-c", query], check=True, timeout=30, capture_output=True, text=True).stdout
    return out.strip().split()


def store_counters(url):
    """(transactions committed, rows inserted + updated) of the database so far, and the bytes of
    write-ahead log the server wrote so far (every database of the private server: the test's)."""
    xact, rows, wal = sql(url, "SELECT xact_commit + xact_rollback, tup_inserted + tup_updated, pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::int8 "
                               "FROM pg_stat_database WHERE datname = current_database()")
    return int(xact), int(rows), int(wal)


def connected(port, client_id):
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    client.max_inflight_messages_set(1000)
    client.max_queued_messages_set(0)
    client.connect("127.0.0.1", port)
    client.loop_start()
    return client


def publish_all(clients, messages):
    """Publishes (topic, payload, retain) at QoS 1 round-robin; returns once all are acknowledged."""
    infos = [clients[i % len(clients)].publish(topic, payload, qos=1, retain=retain) for i, (topic, payload, retain) in enumerate(messages)]
    for info in infos:
        info.wait_for_publish(timeout=120)
    return sum(1 for info in infos if info.is_published())


def report(follower, names, store_url):
    """What each instance says of its partitions and subscriptions, and what the store holds (a wait failed)."""
    for name in names:
        m = follower.latest.get(name, {})
        print(f"{name}: " + ", ".join(f"{key} {m.get(key, 0):.0f}" for key in (
            "gateway_cluster_device_subscriptions", "gateway_cluster_subscriptions_pending", "gateway_cluster_partitions",
            "gateway_cluster_partition_changes_total", "gateway_cluster_listing_failures_total", "gateway_cluster_heartbeats_failing",
            "gateway_cluster_lease_past_deadline", "gateway_handoff_over_capacity_total", "gateway_messages_received_total",
            "gateway_frames_processed_total", "gateway_cluster_frames_not_owned_total", "gateway_cluster_context_writes_total")), flush=True)
    print("device_state rows: " + sql(store_url, "SELECT count(*) FROM device_state")[0]
          + "; partitions by owner: " + " ".join(sql(store_url, "SELECT owner || '=' || count(*) FROM ownership_partition GROUP BY owner ORDER BY owner"))
          + "; epochs above 1: " + sql(store_url, "SELECT count(*) FROM ownership_partition WHERE epoch > 1")[0], flush=True)


HELLO = json.dumps({"model": "Apple Watch Series 9", "platform": "watchOS", "osVersion": "10.1", "app": "com.example.bench",
                    "authorization": "authorized", "wristLocation": "left", "crownOrientation": "right", "sequence": 1})


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("terminated"))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--instances", type=int, default=4)
    parser.add_argument("--devices", type=int, default=100_000)
    parser.add_argument("--streaming", type=int, default=300, help="devices sending a frame every --every seconds")
    parser.add_argument("--every", type=float, default=1, help="seconds between two frames of a streaming device (spread evenly)")
    parser.add_argument("--stream", choices=["status", "altimeter"], default="status",
                        help="what the streaming devices send: status (a context stream, online and offline by turns) or altimeter readings")
    parser.add_argument("--steady", type=float, default=15, help="seconds of steady state measured")
    parser.add_argument("--bin", default=os.path.join(REPO, ".build-release", "release"))
    parser.add_argument("--deadline", type=float, default=1200)
    parser.add_argument("--logs", default=None)
    parser.add_argument("--store-url", default=os.environ.get("WG_SCALE_STORE_URL"))
    args = parser.parse_args()
    if not args.store_url:
        parser.error("--store-url is required (or run Benchmarks/scale-out.sh --takeover)")
    logs = args.logs or tempfile.mkdtemp(prefix="wg-takeover-")
    deadline = time.monotonic() + args.deadline
    remaining = lambda: max(1.0, deadline - time.monotonic())

    port = e2e.free_port()
    broker = f"mqtt://127.0.0.1:{port}"
    config = os.path.join(logs, "mosquitto.conf")
    e2e.write_broker_config(config, port)
    names = [f"bench-{i}" for i in range(args.instances)]
    victim = names[-1]
    database = f"wg_takeover_{os.getpid()}"
    store_url = scale.make_database(args.store_url, database)
    started, follower, clients, streaming = [], None, [], threading.Event()
    try:
        mosquitto = subprocess.Popen(["mosquitto", "-c", config], stdout=subprocess.DEVNULL, stderr=open(os.path.join(logs, "mosquitto.log"), "w"))
        started.append(mosquitto)
        e2e.wait_for_broker(mosquitto, port, os.path.join(logs, "mosquitto.log"))
        follower = scale.InstanceMetrics(port)
        gateways = {}
        for name in names:
            command = scale.gateway_command(args.bin, broker, name, store_url, os.path.join(logs, name + "-journal.bin"))
            gateways[name] = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=open(os.path.join(logs, f"{name}.log"), "w"))
            started.append(gateways[name])
        print("$ " + " ".join(command), flush=True)
        if follower.wait(lambda latest: all(n in latest for n in names) and scale.total(latest, "gateway_cluster_partitions") == 1024,
                         min(90, remaining())) is None:
            sys.exit(f"the partitions did not settle over {args.instances} instances; logs in {logs}")

        def subscriptions(latest, among):
            return sum(latest.get(n, {}).get("gateway_cluster_device_subscriptions", 0) for n in among), \
                sum(latest.get(n, {}).get("gateway_cluster_subscriptions_pending", 0) for n in among)

        def all_subscribed(among):
            def check(latest):
                count, pending = subscriptions(latest, among)
                return all(n in latest for n in among) and count >= args.devices and pending == 0
            return check

        # 1. The fleet says hello.
        clients = [connected(port, f"bench-fleet-{i}") for i in range(4)]
        devices = [f"bench-watch-{i:06d}" for i in range(args.devices)]
        begun = time.monotonic()
        acknowledged = publish_all(clients, [(f"wearables/{d}/hello", HELLO, True) for d in devices])
        published_in = time.monotonic() - begun
        if follower.wait(all_subscribed(names), min(300, remaining())) is None:
            count, pending = subscriptions(follower.latest, names)
            report(follower, names, store_url)
            sys.exit(f"the instances subscribed {count:.0f} of {args.devices} devices ({pending:.0f} pending); logs in {logs}")
        subscribed_in = time.monotonic() - begun
        print(f"fleet: {acknowledged} hellos acknowledged in {published_in:.1f} s; every device subscribed after {subscribed_in:.1f} s", flush=True)
        # The workers may be far behind the subscriptions: the kill is to find a settled fleet
        # (every hello processed and its device written), not a backlog that dies with it.
        def caught_up(latest):
            return all(n in latest and latest[n].get("gateway_queue_depth", 1) == 0 and latest[n].get("gateway_buffered_bytes", 1) == 0
                       for n in names)
        if follower.wait(caught_up, min(300, remaining())) is None:
            report(follower, names, store_url)
            sys.exit(f"the instances' workers did not catch up with the hellos; logs in {logs}")
        processed_in = time.monotonic() - begun
        stored_devices = int(sql(store_url, "SELECT count(*) FROM device_state")[0])
        print(f"fleet: every hello processed after {processed_in:.1f} s; {stored_devices} devices in the store", flush=True)

        # 2. Steady state: --streaming devices send a frame every --every seconds, spread evenly
        # over slices of 0.1 s (status: online and offline by turns, each a change with its own date).
        sent = [0]
        def frame(device, index):
            if args.stream == "status":
                return f"wearables/{device}/status", json.dumps({"state": "online" if index % 2 == 0 else "offline", "date": 1_800_000_000 + index * args.every})
            return f"wearables/{device}/altimeter", json.dumps({"timestamp": 1000 + index * args.every, "relativeAltitude": round(0.37 * (index % 50), 2),
                                                              "pressure": round(101.3 - 0.004 * (index % 50), 4)})
        def stream():
            slice_seconds = 0.1
            slices = max(1, round(args.every / slice_seconds))
            start, tick = time.monotonic(), 0
            while not streaming.is_set():
                index, part = divmod(tick, slices)
                for n in range(part * args.streaming // slices, (part + 1) * args.streaming // slices):
                    clients[n % len(clients)].publish(*frame(devices[n], index), qos=1)
                    sent[0] += 1
                tick += 1
                streaming.wait(max(0, start + tick * slice_seconds - time.monotonic()))

        threading.Thread(target=stream, daemon=True).start()
        time.sleep(max(3, args.every))  # every streaming device's first frame processed and written, not measured
        before_steady, store_before, start, sent_before = follower.next(min(10, remaining())), store_counters(store_url), time.monotonic(), sent[0]
        time.sleep(args.steady)
        after_steady, store_after, end, sent_after = follower.next(min(10, remaining())), store_counters(store_url), time.monotonic(), sent[0]
        steady = end - start
        steady_frames = (sent_after - sent_before) / steady
        steady_wal = (store_after[2] - store_before[2]) / steady
        snapshot_bytes = sql(store_url, "SELECT coalesce(avg(octet_length(snapshot)), 0)::int8, coalesce(avg(pg_column_size(snapshot)), 0)::int8 FROM device_state")
        steady_xact = (store_after[0] - store_before[0]) / steady
        steady_rows = (store_after[1] - store_before[1]) / steady
        steady_snapshots = (scale.total(after_steady, "gateway_device_snapshots_written_total")
                            - scale.total(before_steady, "gateway_device_snapshots_written_total")) / steady

        # 3. kill -9 of one instance.
        at_kill = follower.next(min(10, remaining()))
        stored_at_kill = int(sql(store_url, "SELECT count(*) FROM device_state")[0])
        held, epochs = sql(store_url, f"SELECT count(*) FILTER (WHERE owner = '{victim}'), sum(epoch) FROM ownership_partition")
        held, epochs = int(held), int(epochs)
        victim_epochs = dict(tuple(map(int, pair.split(":"))) for pair in sql(
            store_url, f"SELECT string_agg(partition || ':' || epoch, ',') FROM ownership_partition WHERE owner = '{victim}'")[0].split(","))
        incarnation = sql(store_url, f"SELECT incarnation FROM gateway_instance WHERE name = '{victim}'")[0]
        store_before = store_counters(store_url)
        killed_at = time.monotonic()
        gateways[victim].kill()
        gateways[victim].wait()
        taken_at = None
        while time.monotonic() - killed_at < min(60, remaining()):
            left = int(sql(store_url, f"SELECT count(*) FROM ownership_partition WHERE (owner = '{victim}' AND incarnation = '{incarnation}') OR expires_at < now()")[0])
            if left == 0:
                taken_at = time.monotonic()
                break
            time.sleep(0.1)
        if taken_at is None:
            sys.exit(f"{victim}'s partitions were not taken within 60 s; logs in {logs}")
        # The stand-in (under the dead name, a new incarnation) hands them on and leaves.
        moved_at = None
        while time.monotonic() - killed_at < min(90, remaining()):
            if int(sql(store_url, f"SELECT count(*) FROM ownership_partition WHERE owner = '{victim}' OR expires_at < now()")[0]) == 0:
                moved_at = time.monotonic()
                break
            time.sleep(0.1)
        survivors = [n for n in names if n != victim]
        # Its devices subscribed by the survivors (its own retained metrics are left out).
        resubscribed = follower.wait(all_subscribed(survivors), min(120, remaining()))
        resubscribed_at = time.monotonic() if resubscribed else None
        if not resubscribed:
            report(follower, survivors, store_url)
        store_after = store_counters(store_url)
        window = (resubscribed_at or time.monotonic()) - killed_at
        changes = int(sql(store_url, "SELECT sum(epoch) FROM ownership_partition")[0]) - epochs
        epochs_after = dict(tuple(map(int, pair.split(":"))) for pair in sql(
            store_url, "SELECT string_agg(partition || ':' || epoch, ',') FROM ownership_partition")[0].split(","))
        most_changes = max(epochs_after[partition] - epoch for partition, epoch in victim_epochs.items())
        # The survivors' latest metrics (the dead instance publishes no more: next() would wait for it).
        with follower.lock:
            after_takeover = dict(follower.latest)
        streaming.set()

        def heartbeat_ms(before, after, among):
            """Mean round trip of the heartbeats `among` sent between two metric snapshots (ms)."""
            if not before or not after:
                return "n/a"

            def delta(key):
                return sum(after.get(n, {}).get(key, 0) - before.get(n, {}).get(key, 0) for n in among)
            count = delta("gateway_cluster_heartbeat_seconds_count")
            return f"{1000 * delta('gateway_cluster_heartbeat_seconds_sum') / count:.1f} ms over {count:.0f}" if count > 0 else "n/a"

        took = taken_at - killed_at
        print()
        print(f"{args.devices} devices ({args.streaming} sending {'a status' if args.stream == 'status' else 'an altimeter reading'} every {args.every:g} s, the rest idle after hello), {args.instances} instances; "
              f"binaries {args.bin}; logs in {logs}")
        print()
        print("| measure | value |")
        print("|---|---|")
        print(f"| hellos published (4 connections, QoS 1) | {published_in:.1f} s |")
        print(f"| every device subscribed by its owner, from the first hello | {subscribed_in:.1f} s |")
        print(f"| every hello processed (the instances' queues empty), from the first hello | {processed_in:.1f} s |")
        print(f"| devices in the store then; at the kill | {stored_devices}; {stored_at_kill} |")
        print(f"| steady state: store transactions per second | {steady_xact:.0f} |")
        print(f"| steady state: store rows inserted or updated per second | {steady_rows:.0f} |")
        print(f"| steady state: device snapshots written per second (all instances) | {steady_snapshots:.0f} |")
        print(f"| steady state: frames sent per second; snapshots written per frame | {steady_frames:.0f}; {steady_snapshots / max(steady_frames, 1):.2f} |")
        print(f"| steady state: write-ahead log per second; per snapshot written | {steady_wal / 1e6:.1f} MB; {steady_wal / max(steady_snapshots, 1) / 1e3:.1f} kB |")
        print(f"| a device snapshot: mean bytes; as stored (compressed) | {snapshot_bytes[0]}; {snapshot_bytes[1]} |")
        print(f"| steady state: heartbeat round trip (renewal statement), mean over all instances | {heartbeat_ms(before_steady, after_steady, names)} |")
        print(f"| kill -9 of {victim}: partitions it held | {held} |")
        print(f"| every partition held by a live run (the stand-in or a survivor) after | {took:.1f} s (goal <= {LEASE_TIME + 2:.0f} s) |")
        print(f"| every partition held by a survivor (the stand-in handed them on) after | {f'{moved_at - killed_at:.1f} s' if moved_at else 'NOT within 90 s'} |")
        print(f"| every device subscribed by the survivors after | {f'{resubscribed_at - killed_at:.1f} s' if resubscribed_at else 'NOT within 120 s'} |")
        print(f"| epoch steps for its partitions (the adoption's and the hand-over's): all; most for one partition | {changes}; {most_changes} |")
        print(f"| take-over: heartbeat round trip, mean over the survivors | {heartbeat_ms(at_kill, after_takeover, survivors)} |")
        stand_in = after_takeover.get(f"{victim}-stand-in", {})
        print(f"| take-over: messages the stand-in received (its last published metrics); second copies dropped; not owned | "
              f"{stand_in.get('gateway_messages_received_total', 0):.0f}; {stand_in.get('gateway_cluster_duplicate_deliveries_total', 0):.0f}; "
              f"{stand_in.get('gateway_cluster_frames_not_owned_total', 0):.0f} |")
        def survivors_delta(key):
            return sum(scale.total({n: after_takeover.get(n, {})}, key) - scale.total({n: at_kill.get(n, {})}, key) for n in survivors)
        print(f"| take-over: messages the survivors received; second copies dropped | "
              f"{survivors_delta('gateway_messages_received_total'):.0f}; {survivors_delta('gateway_cluster_duplicate_deliveries_total'):.0f} |")
        print(f"| take-over: store transactions per second | {(store_after[0] - store_before[0]) / window:.0f} |")
        print(f"| take-over: store rows inserted or updated per second | {(store_after[1] - store_before[1]) / window:.0f} |")
        failed = took > LEASE_TIME + 2 or most_changes > 2 or resubscribed_at is None or moved_at is None
        sys.exit(1 if failed else 0)
    finally:
        streaming.set()
        for client in clients:
            client.loop_stop()
            client.disconnect()
        if follower:
            follower.stop()
        e2e.stop_processes(started)
        scale.drop_database(args.store_url, database)


if __name__ == "__main__":
    main()
