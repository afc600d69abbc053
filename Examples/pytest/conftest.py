"""Fixtures shared by the tests here.

- `testbed` runs `wearable-sim testbed`: a private mosquitto and gateway per test. The testbed
  prints `key=value` lines and then `ready`; `broker=` is always the first line, and an `http=`
  line follows only when the gateway serves HTTP (`wearable-sim testbed --http`, which this
  fixture does not pass; every key it prints lands in the fixture's dictionary). Closing its
  stdin, or SIGTERM, stops it and it removes everything it created.
- `contract`, `samples` and `generated_models` are made once per session: contract/ loaded, the
  messages `wearable-sim contract-samples` produces, and the typed models contract/README.md's
  `datamodel-codegen` command generates from the committed schemas.
"""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "contract"))
sys.path.insert(0, str(REPOSITORY / "Examples/python-consumer"))
from typed_consumer import GeneratedModels  # noqa: E402
from wg_contract import Contract  # noqa: E402

WEARABLE_SIM = os.environ.get("WEARABLE_SIM", "wearable-sim")


@pytest.fixture(scope="session")
def contract():
    return Contract()


@pytest.fixture(scope="session")
def samples(tmp_path_factory):
    directory = tmp_path_factory.mktemp("contract-samples")
    subprocess.run([WEARABLE_SIM, "contract-samples", "--out", str(directory)], check=True, stdout=subprocess.DEVNULL)
    return [json.loads(line) for line in (directory / "samples.jsonl").read_text().splitlines()]


def documented_generation_command():
    """The `datamodel-codegen` command of contract/README.md, as arguments."""
    text = (REPOSITORY / "contract/README.md").read_text()
    (command,) = re.findall(r"^(datamodel-codegen (?:.*\\\n)*.*)$", text, re.MULTILINE)
    return shlex.split(command.replace("\\\n", " "))


@pytest.fixture(scope="session")
def generated_models(tmp_path_factory):
    """README's command, run from the repository with its --output in a temporary directory."""
    arguments = documented_generation_command()
    output = arguments.index("--output") + 1
    arguments[output] = str(tmp_path_factory.mktemp("generated") / Path(arguments[output]).name)
    # The generator of this environment, whatever PATH holds.
    subprocess.run([sys.executable, "-m", "datamodel_code_generator", *arguments[1:]], cwd=REPOSITORY, check=True)
    return GeneratedModels(arguments[output])


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
