#!/usr/bin/env python3
"""Pinned Swift packages: deploy/swift-package-versions.txt equals the package resolution, and the image build applies it.

The image build pins every Swift package by version (docs/releasing.md, "What the image build
pins"): Package.resolved stays out of git, because the development machines resolve through a
mirror whose commit ids differ from upstream's, but the versions are the same on both sides.
deploy/swift-package-versions.txt holds them: one line per package of the resolved graph,
direct and transitive, `identity version`, sorted. This script

- without --write, checks that the file equals the resolution in Package.resolved (the one the
  test command built and tested with; when Package.resolved is missing, `swift package resolve`
  makes it first, within --timeout seconds) and names each package that is listed with another
  version, listed but not resolved, or resolved but not listed;
- with --write, rewrites the file from that resolution (after a change to Package.swift or a
  `swift package update`);
- in both modes fails when a package is resolved to a branch or a revision rather than a version
  (nothing to pin it to), and checks the Dockerfile: its build stage (the stage that runs
  `swift build`) copies the file after `COPY Package.swift` and, before `swift build`, runs a
  step that reads it, resolves packages with `swift package resolve NAME --version VERSION` and
  compares the result in Package.resolved with it.

--resolved FILE compares with another Package.resolved, e.g. the one an image records in
/usr/share/doc/wearable-gateway/Package.resolved; nothing is resolved then.
Standard library only; it reads the Dockerfile with scripts/check-dockerfile.py's parser.
Usage: python3 scripts/check-package-versions.py [--write] [--resolved FILE] [--timeout SECONDS]
Prints one summary line; exit status 1 with one line per problem before it.
"""
import argparse
import importlib.util
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
VERSIONS = "deploy/swift-package-versions.txt"
HEADER = """\
# Swift packages of the image build, pinned by version: every package of the resolved graph,
# direct and transitive, as `identity version`, sorted. The Dockerfile's build stage moves each
# package to its version (swift package resolve IDENTITY --version VERSION) and fails unless
# the resolution then holds exactly these. Versions, not commit ids: Package.resolved stays out
# of git (docs/releasing.md, "What the image build pins").
# Made from Package.resolved by `python3 scripts/check-package-versions.py --write` (after a
# change to Package.swift or a `swift package update`); scripts/test.sh runs the same script
# without --write, which fails when this file differs from the resolution the tests built with.
"""
LINE = re.compile(r"(\S+) (\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?)")


def resolution(resolved, may_resolve, timeout):
    """({identity: version or None}, problems) from a Package.resolved (None: a pin without a
    version); runs `swift package resolve` in the repository first when it is missing and
    `may_resolve`."""
    if not resolved.exists():
        if not may_resolve:
            return {}, [f"{resolved}: no such file"]
        try:
            result = subprocess.run(["swift", "package", "resolve"], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {}, [f"`swift package resolve` did not end within {timeout:g} s"]
        if result.returncode != 0 or not resolved.exists():
            output = (result.stdout + result.stderr).strip().splitlines()[-5:]
            return {}, [f"`swift package resolve` failed (exit status {result.returncode}): " + " / ".join(output)]
    try:
        pins = json.loads(resolved.read_text())["pins"]
    except (ValueError, KeyError, TypeError) as error:
        return {}, [f"{resolved}: not a Package.resolved with a list of pins ({error})"]
    versions, problems = {}, []
    for pin in pins:
        identity, state = pin.get("identity"), pin.get("state") or {}
        if not state.get("version"):
            how = ", ".join(f"{key} {value}" for key, value in sorted(state.items())) or "no state"
            problems.append(f"{identity}: resolved to no version ({how}); a package pinned by branch or revision cannot be pinned by version")
            versions[identity] = None
        else:
            versions[identity] = state["version"]
    return versions, problems


def listed(path):
    """({identity: version}, problems) of the versions file."""
    if not path.exists():
        return {}, [f"{VERSIONS}: missing (python3 scripts/check-package-versions.py --write makes it)"]
    versions, order, problems = {}, [], []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        match = LINE.fullmatch(line)
        if not match:
            problems.append(f"{VERSIONS}:{number}: `{line}` is not `identity version`")
            continue
        identity, version = match.groups()
        if identity in versions:
            problems.append(f"{VERSIONS}:{number}: {identity} is listed twice")
        versions[identity] = version
        order.append(identity)
    if order != sorted(order):
        problems.append(f"{VERSIONS}: the packages are not sorted by identity")
    return versions, problems


def render(versions):
    return HEADER + "".join(f"{identity} {versions[identity]}\n" for identity in sorted(versions))


def compare(listed_versions, resolved_versions, source):
    problems = []
    for identity in sorted(set(listed_versions) | set(resolved_versions)):
        want, have = listed_versions.get(identity), resolved_versions.get(identity)
        if want == have or (have is None and identity in resolved_versions):
            continue  # equal, or resolved without a version (a problem of its own)
        if have is None:
            problems.append(f"{identity}: {want} listed in {VERSIONS}, not in the resolution ({source})")
        elif want is None:
            problems.append(f"{identity}: {have} resolved ({source}), not listed in {VERSIONS}")
        else:
            problems.append(f"{identity}: {want} listed in {VERSIONS}, {have} resolved ({source})")
    return problems


def dockerfile_module():
    spec = importlib.util.spec_from_file_location("check_dockerfile", ROOT / "scripts" / "check-dockerfile.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_dockerfile(path):
    """The build stage copies the versions file and applies it before `swift build`."""
    parser = dockerfile_module()
    _, stages = parser.stages(parser.instructions(path.read_text()))
    builders = [s for s in stages if any(w == "RUN" and "swift build" in a for _, w, a in s["instructions"])]
    if not builders:
        return ["Dockerfile: no stage runs `swift build`"]
    stage, name = builders[0], pathlib.PurePath(VERSIONS).name
    steps = stage["instructions"]

    def first(predicate):
        return next((i for i, (_, word, arguments) in enumerate(steps) if predicate(word, arguments)), None)

    manifest = first(lambda w, a: w == "COPY" and "Package.swift" in a.split())
    copy = first(lambda w, a: w == "COPY" and VERSIONS in a.split())
    apply = first(lambda w, a: w == "RUN" and name in a and re.search(r"swift package resolve\s+\S+\s+--version\s", a) and "Package.resolved" in a)
    build = first(lambda w, a: w == "RUN" and "swift build" in a)
    where = f"Dockerfile:{stage['line']} (stage {stage['name'] or stage['base']})"
    problems = []
    if copy is None:
        problems.append(f"{where}: the build stage does not copy {VERSIONS} (COPY {VERSIONS} ./deploy/)")
    elif manifest is not None and copy < manifest:
        problems.append(f"Dockerfile:{steps[copy][0]}: {VERSIONS} is copied before Package.swift")
    if apply is None:
        problems.append(f"{where}: no RUN reads {name}, moves packages with `swift package resolve NAME --version VERSION` "
                        "and compares Package.resolved with it")
    else:
        if copy is not None and apply < copy:
            problems.append(f"Dockerfile:{steps[apply][0]}: the versions are applied before {VERSIONS} is copied")
        if manifest is not None and apply < manifest:
            problems.append(f"Dockerfile:{steps[apply][0]}: the versions are applied before Package.swift is copied")
        if build is not None and apply > build:
            problems.append(f"Dockerfile:{steps[apply][0]}: the versions are applied after `swift build` (line {steps[build][0]})")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"rewrite {VERSIONS} from the resolution")
    parser.add_argument("--resolved", help="compare with this Package.resolved (default: the repository's, resolved if missing)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds `swift package resolve` may take (default 600)")
    arguments = parser.parse_args()

    resolved = pathlib.Path(arguments.resolved) if arguments.resolved else ROOT / "Package.resolved"
    source = str(resolved.resolve().relative_to(ROOT)) if resolved.resolve().is_relative_to(ROOT) else str(resolved)
    resolved_versions, problems = resolution(resolved, arguments.resolved is None, arguments.timeout)
    path, wrote = ROOT / VERSIONS, False
    if arguments.write and resolved_versions and not problems:
        path.write_text(render(resolved_versions))
        wrote = True
    elif not arguments.write:
        listed_versions, found = listed(path)
        problems += found
        if listed_versions and resolved_versions:
            problems += compare(listed_versions, resolved_versions, source)
    problems += check_dockerfile(ROOT / "Dockerfile")
    for problem in problems:
        print(problem)
    done = "written from it" if wrote else "not written" if arguments.write else "compared with it"
    print(f"Swift package versions: {len(problems)} problem{'' if len(problems) == 1 else 's'} ({len(resolved_versions)} packages "
          f"resolved in {source}, {VERSIONS} {done}; the Dockerfile's build stage checked for copying and applying it)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
