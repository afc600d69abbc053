#!/usr/bin/env python3
"""One version: every place that names the project's version agrees with ProductVersion.swift.

Sources/TelemetryCore/ProductVersion.swift (`current`) is the version's one source: both
executables print it for --version, gateway/status and gateway_build_info carry it. The places
that repeat it, each of which must name the same version:

- CHANGELOG.md: the first heading that names a version, `## X.Y.Z — Unreleased` while it is in
  progress, `## X.Y.Z — YYYY-MM-DD` once released (an `## Unreleased` heading above it is allowed
  for work not yet given a version);
- Dockerfile: the default of `ARG VERSION` (the image's org.opencontainers.image.version label);
- deploy/kubernetes/kustomization.yaml: `newTag` of the wearable-gateway image;
- Dockerfile, deploy/kubernetes/statefulset.yaml, docker-compose.yml, README.md and docs/*.md:
  every image reference `wearable-gateway:X.Y.Z` or `wearable-gateway-testbed:X.Y.Z` (a tag that
  is not a version, such as `dev`, is left alone);
- docs/*.md and contract/asyncapi.yaml: the gateway/status examples' `"version": "X.Y.Z"`
  (`version: X.Y.Z` in the AsyncAPI document's examples; its own info.version and the MQTT
  bindings' bindingVersion are other versions).

Standard library only. Usage (from anywhere): python3 scripts/check-version.py
Prints the version and the places checked; exit status 1 with one line per place that
disagrees, naming its file and line.
"""
import os
import pathlib
import re
import sys

ROOT = pathlib.Path(os.environ.get("WG_REPO_ROOT") or pathlib.Path(__file__).resolve().parent.parent)
SOURCE = "Sources/TelemetryCore/ProductVersion.swift"
SEMVER = r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?"


def product_version(root=ROOT):
    """ProductVersion.current, read from its source file."""
    match = re.search(r'static let current = "([^"]+)"', (root / SOURCE).read_text())
    if not match:
        sys.exit(f"{SOURCE}: no `static let current = \"...\"`")
    return match.group(1)


def lines(path):
    """(line number, text) of a file of the repository."""
    return enumerate((ROOT / path).read_text(encoding="utf-8").splitlines(), start=1)


def changelog(version):
    for number, line in lines("CHANGELOG.md"):
        match = re.match(rf"## \[?({SEMVER})\]?\s*(?:—|-)\s*(\S.*)$", line)
        if match:
            found, when = match.groups()
            if found != version:
                return [f"CHANGELOG.md:{number}: the newest version heading names {found}, not {version}"]
            if when != "Unreleased" and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", when):
                return [f"CHANGELOG.md:{number}: `{line}`: after the version comes `Unreleased` or the release date (YYYY-MM-DD)"]
            return []
    return [f"CHANGELOG.md: no `## {version} — Unreleased` (or dated) heading"]


def dockerfile(version):
    defaults = [(n, m.group(1)) for n, line in lines("Dockerfile") if (m := re.match(r"ARG VERSION=(\S+)\s*$", line))]
    if not defaults:
        return ["Dockerfile: no `ARG VERSION=<version>` (the default of the image's version label)"]
    return [f"Dockerfile:{n}: ARG VERSION defaults to {found}, not {version}" for n, found in defaults if found != version]


def kustomization(version):
    path = "deploy/kubernetes/kustomization.yaml"
    tags = [(n, m.group(1)) for n, line in lines(path) if (m := re.match(r"""\s*newTag:\s*["']?([^"'\s]+)""", line))]
    if not tags:
        return [f"{path}: no newTag"]
    return [f"{path}:{n}: newTag {found}, not {version}" for n, found in tags if found != version]


def pattern_everywhere(paths, pattern, what, version):
    """Findings for every match of `pattern` (group 1: a version) in `paths` that is not `version`."""
    findings = []
    for path in paths:
        for number, line in lines(path):
            for match in re.finditer(pattern, line):
                if match.group(1) != version:
                    findings.append(f"{path}:{number}: {what} {match.group(1)}, not {version}")
    return findings


def main():
    version = product_version()
    docs = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))
    image_paths = ["Dockerfile", "deploy/kubernetes/statefulset.yaml", "docker-compose.yml", "README.md", *docs]
    findings = changelog(version) + dockerfile(version) + kustomization(version)
    findings += pattern_everywhere(image_paths, rf"\bwearable-gateway(?:-testbed)?:({SEMVER})\b", "the image tag", version)
    findings += pattern_everywhere(docs, rf'"version":\s*"({SEMVER})"', "a status example's version", version)
    # The AsyncAPI document's examples are indented below messages; info.version (two spaces) is the contract's own.
    findings += pattern_everywhere(["contract/asyncapi.yaml"], rf"^\s{{4,}}version:\s*['\"]?({SEMVER})", "a status example's version", version)
    if "wearable-gateway:" not in (ROOT / "deploy/kubernetes/statefulset.yaml").read_text():
        findings.append("deploy/kubernetes/statefulset.yaml: no wearable-gateway image")
    for finding in findings:
        print(finding)
    print(f"version check: {SOURCE} says {version}; places that disagree: {len(findings)} (read: CHANGELOG.md, Dockerfile, "
          f"kustomization.yaml, image tags in {len(image_paths)} files, status examples in docs/ and contract/asyncapi.yaml)")
    sys.exit(1 if findings else 0)


if __name__ == "__main__":
    main()
