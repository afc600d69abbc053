"""Process and broker helpers shared by the benchmark scripts (end-to-end.py, scale-out.py,
outbound-rate.py, relay-ratio/relay-ratio.py): free ports, a process's CPU seconds, context
switches and threads' CPU, and the disks' written bytes (read by psutil), waiting for a broker,
stopping what a run started (the gateway with SIGTERM, so it drains), and reading the gateway's
Prometheus text with prometheus_client's parser (both in Benchmarks/requirements.txt)."""

import os
import signal
import socket
import subprocess
import sys
import time

try:
    import psutil
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    sys.exit("the benchmarks read metrics with prometheus-client and processes with psutil: python3 -m venv .build/pytest-venv && "
             ".build/pytest-venv/bin/pip install -r Benchmarks/requirements.txt, then run them with .build/pytest-venv/bin/python "
             "(docs/performance.md)")

TICKS = os.sysconf("SC_CLK_TCK")  # clock ticks per second of /proc's CPU times (end-to-end.py's thread table)
GONE = (psutil.NoSuchProcess, psutil.AccessDenied)  # a process or thread that ended (ZombieProcess is a NoSuchProcess)


def metric_samples(text):
    """(sample name, labels, value) of every sample in Prometheus text, as prometheus_client parses
    it (escapes in label values included). A counter's samples keep their `_total` name and a
    histogram's are its `_bucket`, `_sum` and `_count` lines. Text it cannot parse ends the list
    there, as the gateway's own text never does."""
    samples = []
    try:
        for family in text_string_to_metric_families(text):
            samples.extend((sample.name, sample.labels, sample.value) for sample in family.samples)
    except ValueError:
        pass
    return samples


def metric_totals(text):
    """{sample name: the sum of its series}, labels dropped."""
    totals = {}
    for name, _, value in metric_samples(text):
        totals[name] = totals.get(name, 0.0) + value
    return totals


def metric_series(text, name):
    """The series of one sample name as {'{label="value",…}': value} ('' for no labels), labels sorted."""
    return {("{" + ",".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}" if labels else ""): value
            for sample, labels, value in metric_samples(text) if sample == name}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    """User + system CPU seconds of a live process (its own, not its children's), or None."""
    try:
        times = psutil.Process(pid).cpu_times()
    except GONE:
        return None
    return times.user + times.system


def context_switches(pid):
    """Voluntary context switches (a thread blocked, then was woken) summed over a live
    process's threads, or None. Threads that exited are no longer counted, so over a phase in
    which threads end this undercounts. (psutil counts a process's switches as its main
    thread's, as Linux does in /proc/<pid>/status: so each thread is asked as a Process of its
    own id.)"""
    try:
        threads = psutil.Process(pid).threads()
    except GONE:
        return None
    total = 0
    for thread in threads:
        try:
            total += psutil.Process(thread.id).num_ctx_switches().voluntary
        except GONE:
            pass
    return total


def disk_written_bytes():
    """Bytes the machine's disks have written since boot (psutil's per-disk counters, sectors of
    512 bytes), summed over whole disks (those in /sys/block, without loop, RAM and zram devices,
    whose writes land on a disk counted anyway or on none), or None. Machine-wide: over a
    phase it counts every process's write-back, the side's included."""
    try:
        disks = {name for name in os.listdir("/sys/block") if not name.startswith(("loop", "ram", "zram"))}
        counters = psutil.disk_io_counters(perdisk=True)
    except (OSError, RuntimeError):
        return None
    return sum(counter.write_bytes for name, counter in counters.items() if name in disks)


def thread_cpu_seconds(pid):
    """User + system CPU seconds of a live process's threads, summed by thread name (the
    gateway names its own: mqtt-in, mqtt-out, ...; its cooperative pool's threads share
    Dispatch's name), or None. Threads that exited are no longer counted. A name is what Linux
    keeps, 15 bytes, except that psutil gives the main thread its executable's whole name
    (wearable-gateway, not wearable-gatewa)."""
    try:
        threads = psutil.Process(pid).threads()
    except GONE:
        return None
    totals = {}
    for thread in threads:
        try:
            name = psutil.Process(thread.id).name()
        except GONE:
            continue
        totals[name] = totals.get(name, 0) + thread.user_time + thread.system_time
    return totals


def write_broker_config(path, port, extra_lines=()):
    """A private mosquitto's configuration: anonymous, no persistence, on `port` of loopback,
    with the repository's flow-control limits (config/mosquitto/conf.d) and `extra_lines`."""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(path, "w") as f:
        f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\nlog_dest stderr\n"
                f"include_dir {os.path.join(repo, 'config', 'mosquitto', 'conf.d')}\n")
        for line in extra_lines:
            f.write(line + "\n")


def wait_on(condition, ready, timeout):
    """Waits on a threading.Condition (not held by the caller) until `ready()`, called with it
    held, returns something truthy, which is returned; None after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    with condition:
        while True:
            value = ready()
            if value:
                return value
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            condition.wait(remaining)


def wait_for_broker(process, port, log, timeout=10):
    """Returns once the port accepts connections; exits naming `log` if the broker died or did
    not open it within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                sys.exit("mosquitto did not start; see " + log)
            time.sleep(0.05)


def stop_processes(processes, gateway_timeout=30):
    """Stops processes in reverse start order: a gateway gets SIGTERM and `gateway_timeout`
    seconds to drain, everything else (and a gateway that does not stop) is killed."""
    for process in reversed(processes):
        if process.poll() is not None:
            continue
        # A gateway may run under a launcher such as `taskset -c 1 …`, which execs it.
        if any(str(arg).endswith("wearable-gateway") for arg in process.args[:4]):
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=gateway_timeout)
                continue
            except subprocess.TimeoutExpired:
                pass
        process.kill()
        process.wait()
