#!/usr/bin/env python3
"""Checks what the Dockerfile must have for operators (issue 63), reading it without a container engine.

- the stage that runs `swift build` strips the binaries after building them (`strip`);
- the runtime stage (`FROM ... AS runtime`) has a HEALTHCHECK that asks /healthz or /readyz on
  port 9464 (the gateway's HTTP server), and the OCI labels org.opencontainers.image.title,
  .description, .version, .source and .licenses; title, description and licenses not empty,
  licenses Apache-2.0 (LICENSE), and the version label equal to ProductVersion.current once its
  ${ARG} is replaced with the ARG's default;
- a stage `testbed` built on the runtime stage that installs Debian's `mosquitto` (for
  `wearable-sim testbed`) and runs `wearable-sim testbed`;
- the last stage is `FROM runtime`, so a plain `docker build .` gives the runtime image, not the
  testbed.

The build stage's Swift package pinning (deploy/swift-package-versions.txt copied and applied
before `swift build`) is scripts/check-package-versions.py's part, with this file's parser;
what the stages do at run time is scripts/check-image.sh's. Standard library only.
Usage: python3 scripts/check-dockerfile.py [DOCKERFILE]   (default: the repository's Dockerfile)
Exit status 1 and one line per finding.
"""
import importlib.util
import pathlib
import re
import shlex
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LABELS = ("title", "description", "version", "source", "licenses")
LICENSE = "Apache-2.0"


def product_version():
    """ProductVersion.current, read by scripts/check-version.py's reader."""
    spec = importlib.util.spec_from_file_location("check_version", ROOT / "scripts" / "check-version.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.product_version(ROOT)


def instructions(text):
    """[(line number, INSTRUCTION, arguments)] with continuation lines joined and comments left out."""
    result, pending, start = [], "", 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if pending and line.lstrip().startswith("#"):
            continue  # a comment inside a continued instruction
        if not pending:
            start = number
        pending += line.rstrip()
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        word, _, arguments = pending.strip().partition(" ")
        result.append((start, word.upper(), arguments.strip()))
        pending = ""
    return result


def stages(parsed):
    """Global ARG defaults, and [{name, base, line, instructions}] in order."""
    global_args, found = {}, []
    for number, word, arguments in parsed:
        if word == "FROM":
            match = re.match(r"(\S+)(?:\s+AS\s+(\S+))?$", arguments, re.I)
            found.append({"base": match.group(1), "name": (match.group(2) or "").lower(), "line": number, "instructions": []})
        elif not found:
            if word == "ARG":
                name, _, default = arguments.partition("=")
                global_args[name] = default
        else:
            found[-1]["instructions"].append((number, word, arguments))
    return global_args, found


def labels(stage):
    """{key: value} of the stage's LABEL instructions (later ones win), and the stage's ARG defaults."""
    found, args = {}, {}
    for _, word, arguments in stage["instructions"]:
        if word == "LABEL":
            for pair in shlex.split(arguments):
                key, _, value = pair.partition("=")
                found[key] = value
        elif word == "ARG":
            name, _, default = arguments.partition("=")
            args[name] = default
    return found, args


def check(text, version):
    findings = []
    global_args, found = stages(instructions(text))
    by_name = {s["name"]: s for s in found if s["name"]}

    builders = [s for s in found if any(w == "RUN" and "swift build" in a for _, w, a in s["instructions"])]
    if not builders:
        findings.append("no stage runs `swift build`")
    for stage in builders:
        runs = [a for _, w, a in stage["instructions"] if w == "RUN"]
        first = next(i for i, a in enumerate(runs) if "swift build" in a)
        after = " ".join(runs[first:])
        if not re.search(r"(^|[\s;&|])strip\s", after[after.index("swift build"):]):
            findings.append(f"line {stage['line']}: the build stage does not strip the binaries after `swift build` (strip)")

    runtime = by_name.get("runtime")
    if runtime is None:
        findings.append("no stage `FROM ... AS runtime`")
    else:
        checks = [a for _, w, a in runtime["instructions"] if w == "HEALTHCHECK"]
        if not checks or checks[-1].upper() == "NONE":
            findings.append(f"line {runtime['line']}: the runtime stage has no HEALTHCHECK")
        elif not re.search(r"\bCMD\b.*:9464/(healthz|readyz)\b", checks[-1]):
            findings.append(f"line {runtime['line']}: the runtime stage's HEALTHCHECK asks neither /healthz nor /readyz on port 9464: {checks[-1]}")
        values, args = labels(runtime)
        for key in LABELS:
            label = f"org.opencontainers.image.{key}"
            if label not in values:
                findings.append(f"line {runtime['line']}: the runtime stage has no LABEL {label}")
            elif key in ("title", "description", "licenses") and not values[label].strip():
                findings.append(f"line {runtime['line']}: LABEL {label} is empty")
        if values.get("org.opencontainers.image.licenses", LICENSE) != LICENSE:
            findings.append(f"LABEL org.opencontainers.image.licenses is {values['org.opencontainers.image.licenses']!r}, not {LICENSE} (LICENSE)")
        label = values.get("org.opencontainers.image.version")
        if label is not None:
            defaults = {**global_args, **args}
            resolved = re.sub(r"\$\{?(\w+)\}?", lambda m: defaults.get(m.group(1), f"<no ARG {m.group(1)}>"), label)
            if resolved != version:
                findings.append(f"LABEL org.opencontainers.image.version is {label!r} = {resolved!r}, not ProductVersion.current {version!r}")

    testbed = by_name.get("testbed")
    if testbed is None:
        findings.append("no stage `FROM runtime AS testbed` (the image with mosquitto for `wearable-sim testbed`)")
    else:
        if testbed["base"].lower() != "runtime":
            findings.append(f"line {testbed['line']}: the testbed stage is built on {testbed['base']}, not on the runtime stage")
        runs = " ".join(a for _, w, a in testbed["instructions"] if w == "RUN")
        if not re.search(r"apt-get install[^;&|]*\smosquitto(\s|$)", runs):
            findings.append(f"line {testbed['line']}: the testbed stage does not install mosquitto (apt-get install ... mosquitto)")
        commands = [a for _, w, a in testbed["instructions"] if w in ("CMD", "ENTRYPOINT")]
        if not any("wearable-sim" in c and "testbed" in c for c in commands):
            findings.append(f"line {testbed['line']}: the testbed stage does not run `wearable-sim testbed` (CMD)")

    # The default target: the runtime stage itself, or a plain `FROM runtime` that adds nothing.
    last = found[-1] if found else None
    if last and not (last["name"] == "runtime" or (last["base"].lower() == "runtime" and not last["instructions"])):
        findings.append(f"line {last['line']}: the last stage is not the runtime image (a plain `FROM runtime`): `docker build .` would give {last['name'] or last['base']}")
    return findings


def main():
    path = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "Dockerfile"
    version = product_version()
    findings = check(path.read_text(), version)
    shown = path.resolve().relative_to(ROOT) if path.resolve().is_relative_to(ROOT) else path
    for finding in findings:
        print(f"{shown}: {finding}")
    print(f"Dockerfile check: {len(findings)} findings in {shown} (strip, HEALTHCHECK, OCI labels with version {version}, testbed with mosquitto, default target)")
    sys.exit(1 if findings else 0)


if __name__ == "__main__":
    main()
