"""A pytest fixture that runs `wearable-sim testbed`: a private mosquitto and gateway per test.

The testbed prints `key=value` lines and then `ready`; `broker=` is always the first line (an
`http=` line will join it once the gateway serves HTTP). Closing its stdin, or SIGTERM, stops it
and it removes everything it created.
"""

import os
import subprocess
from urllib.parse import urlparse

import pytest

WEARABLE_SIM = os.environ.get("WEARABLE_SIM", "wearable-sim")


@pytest.fixture
def testbed():
    process = subprocess.Popen(
        [WEARABLE_SIM, "testbed"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    endpoints = {}
    try:
        for line in process.stdout:
            line = line.strip()
            if line == "ready":
                break
            key, _, value = line.partition("=")
            endpoints[key] = value
        else:
            raise RuntimeError(f"testbed exited with {process.wait()} before it was ready")
        broker = urlparse(endpoints["broker"])
        yield {"host": broker.hostname, "port": broker.port, **endpoints}
    finally:
        process.stdin.close()  # end of stdin stops the testbed
        if process.wait(timeout=30) != 0:
            raise RuntimeError(f"testbed exited with {process.returncode}")
