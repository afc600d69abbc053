#!/usr/bin/env python3
"""Finds drift between the docs and the code, mechanically.

Checks every Markdown file of the repository (README.md, docs/, Examples/, config/ comments
are not Markdown and are left alone) for names in backticks that must exist in the code:

- configuration keys (`mqtt.keepalive`, `journal.sizeBytes`, ...): must be in the key table,
  read from `wearable-gateway config-keys`; a key's section prefix alone (`derivation.swing`)
  is fine when some key starts with it;
- metric names (`gateway_...`, `mqtt_...`, `wearable_gateway_...`, `recorder_...`): must be
  spelled in a string literal under Sources/ (Prometheus suffixes _bucket/_sum/_count and
  label selectors `{...}` are stripped first);
- command-line flags of the project's executables: in a backticked flag alone (`--set`) or in a
  command line that starts with `wearable-gateway`/`wearable-sim` (in backticks or in a fenced
  code block), each `--flag` must appear in the `--help` of an executable's command or
  subcommand (both executables, every subcommand) or in a script under scripts/ or Benchmarks/;
- environment variables `WG_*`: must be a key's variable, or spelled in Sources/, Tests/ or
  scripts/;
- the Debian package lists of README.md and docs/operations.md: each spells `WG_BUILD_PACKAGES`
  (what scripts/demo.sh installs) and `WG_TEST_PACKAGES` (what the tests add) of scripts/lib.sh
  exactly, in backticks, in the order the script has them;
- README.md's architecture table: every target of Package.swift outside Tests/ is named in its
  first column, and every name there is such a target or a product of Package.swift;
- the commands that run the Examples (in the fenced blocks of the Markdown files, and the usage
  lines of the Examples' own docstrings): every repository path they name exists (except what a
  script generates: config/mosquitto/pki/, .build/), and every `--flag` given to a Python script
  under Examples/ is defined by a script in its directory;
- the alert rules (config/prometheus/alerts.yml): every alert has a `runbook_url`
  `docs/operations.md#<anchor>`, relative, whose anchor is a heading of docs/operations.md; the
  files generated from them (`scripts/make-prometheusrule.py --check`) are up to date and their
  runbook URLs start with the script's RUNBOOK_BASE; the Grafana dashboards: every range of
  rate(), irate() and increase() is `$__rate_interval`;
- the key table of docs/configuration.md: exactly what `wearable-gateway config-keys` prints
  (`--write-key-table` replaces it with that output);
- the metrics reference, docs/metrics.md: its table (between its marker comments) is exactly what
  `wearable-gateway metrics-reference` prints (`--write-metrics-table` replaces it with that output);
- the alerts on losses and failures: every family of that output that `MUST_ALERT` requires (a
  name pattern, `…_failures_total` or `_dropped_` in the name, or a family it names outside that
  pattern, each with why) is selected by the `expr` of some alert of config/prometheus/alerts.yml
  (parsed as below), unless `EXEMPT` says why it needs none; a family `MUST_ALERT` or `EXEMPT`
  names that is gone from the catalog, and an exempt family that has an alert after all, that no
  pattern requires or that `MUST_ALERT` names, is a finding too;
- type names in docs/architecture.md and README.md (`GatewayParts`, `TopicScheme.Leaf`,
  `Double.rounded(toPlaces:)`): every capitalised component must be a type declared or extended
  in Sources/ or Tests/ (or a target of Package.swift), and every lower-case member after a type
  must be spelled there, so the map cannot name a type that was renamed or removed; the few
  names of other libraries the map mentions are listed in `FOREIGN_TYPES`;
- the Grafana dashboards (config/grafana/*.json) and the Prometheus rules (config/prometheus/*.yml):
  every query (a panel's `expr`, a Prometheus template variable's `label_values(selector, label)`
  or `query_result(query)`, a rule's `expr`) parses as PromQL, and every metric it selects (the
  name of each vector selector, by promql-parser) must be one the gateway registers (a
  `label: "..."` literal of a metric under Sources/; Prometheus' own `up` aside), so a renamed
  metric cannot leave an empty panel or an alert that never fires.

Usage: scripts/check-docs.py [--bin DIR] [--write-key-table] [--write-metrics-table]
       (DIR: the built executables, default .build/debug)
Runs in .build/pytest-venv with scripts/check-docs-requirements.txt (promql-parser, PyYAML),
which it makes or fills when needed (scripts/wg_venv.py).
Exit status 1 and one line per finding when something drifted.
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys

from wg_venv import in_virtual_environment

ROOT = pathlib.Path(__file__).resolve().parent.parent
KEY_SECTIONS = ("registry", "capabilities", "mqtt", "topics", "pipeline", "journal", "retained", "state", "metrics", "tracing",
                "http", "logging", "recorder", "derivation", "session", "cluster", "deadLetter", "deadLetters", "store", "tls")
METRIC_PREFIXES = ("gateway_", "mqtt_", "wearable_gateway_", "recorder_")
# Documents whose backticked type names must exist in the code, and the names they may mention
# that belong to other libraries (swift-service-lifecycle, swift-otel, the standard library, Foundation, C).
TYPE_CHECKED = ("docs/architecture.md", "README.md")
FOREIGN_TYPES = {"Service", "ServiceGroup", "OTel", "Synchronization", "Mutex", "NSLock", "DispatchQueue", "NDEBUG"}
# docs/metrics.md: the lines between these markers are `wearable-gateway metrics-reference`'s output.
METRICS_TABLE_BEGIN = "<!-- metrics-reference: begin"
METRICS_TABLE_END = "<!-- metrics-reference: end"
# The families some alert's expression must select, each key a regular expression the whole
# name matches, with why: every family named like a failure or a drop, and the families outside
# that pattern that lose data or say the clustered lease is going (a key without metacharacters
# is one family's name).
MUST_ALERT = {
    r".*_failures_total": "a failure",
    r".*_dropped_.*": "a drop",
    "gateway_journal_bypassed_total": "frames handed on without a journal record: a crash before they are done loses them",
    "gateway_journal_corrupt_records_total": "journal records skipped at start for a failed checksum: their frames are lost",
    "gateway_handoff_after_close_total": "frames handed over after the queues closed at a stop: not processed, lost when not journaled",
    "gateway_device_restores_abandoned_total": "devices processed without their stored state: what it held (open sessions, dives) is lost",
    "gateway_device_state_moved_aside_total": "a state.path file that could not be opened, moved aside: every device's stored state is lost",
    "gateway_cluster_heartbeats_failing": "the store not answering the heartbeats: the leases run out, and outputs wait",
    "gateway_cluster_lease_past_deadline": "past its lease's deadline another instance may take its partitions; what it receives is withheld as fenced",
}
# Families a pattern of `MUST_ALERT` requires that need no alert, each with why: drops that lose
# no frame, no event and no stored data, or a failure another alert already covers. A drop that
# loses a frame or an event is never exempt, nor a family `MUST_ALERT` names.
EXEMPT = {
    "gateway_swing_dropped_candidates_total":
        "swing candidates are not events: impacts and rotation segments wait for the other stream, 64 of each per "
        "device; more wait only while that stream is missing or lags past the alignment window, when they cannot "
        "become swings anyway (docs/swing-metrics.md), or in a flood of spurious impacts; every frame is processed "
        "and published as usual (a derivation-quality count for the dashboard)",
    "gateway_fleet_view_dropped_total":
        "the fleet page's in-memory view letting go of its oldest plot points, events or devices to stay within its "
        "bounds (http.fleetViewBytes, 10,000 devices): a display's bound; the events were published (and the event "
        "history keeps them when it is on)",
    "gateway_fleet_live_clients_dropped_total":
        "a fleet page's live updates ended for a newer page beyond http.maxLiveClients (the oldest, likely a "
        "forgotten tab, which says so and resumes on a reload); nothing of the fleet's data is lost",
    "gateway_tracing_spans_dropped_total":
        "trace spans not exported (queue full, receiver failing): diagnostics about frames, not frames; processing "
        "and publishing go on unaffected, and the log says why",
    "gateway_mqtt_connection_failures_total":
        "no drop: a failed attempt leaves its connection down, which GatewayBrokerDown alerts on after 30 s "
        "(gateway_mqtt_connected); meanwhile the broker keeps the session's frames and the gateway retries with backoff",
}


def run(args):
    return subprocess.run(args, capture_output=True, text=True, check=False).stdout


def is_command(text):
    """Whether `text` runs one of the project's executables."""
    return re.match(r"^(\S*/)?(wearable-gateway|wearable-sim)\b", text) is not None


def check_flags(text, where, flags, scripts):
    """Findings for the flags in `text` that no --help and no script knows."""
    return [f"{where}: flag `{flag}` is in no --help nor script"
            for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text) if flag not in flags and flag not in scripts]


def check_key_table(key_table, write):
    """Findings when docs/configuration.md's key table is not `key_table` (rewritten when `write`)."""
    document = ROOT / "docs" / "configuration.md"
    lines = document.read_text().splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.startswith("| key | environment |")), None)
    if start is None:
        return [f"{document.relative_to(ROOT)}: no key table (a line starting '| key | environment |')"]
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    if "".join(lines[start:end]) == key_table:
        return []
    if write:
        document.write_text("".join(lines[:start]) + key_table + "".join(lines[end:]))
        return []
    return [f"{document.relative_to(ROOT)}:{start + 1}: the key table differs from `wearable-gateway config-keys` "
            "(rewrite it: scripts/check-docs.py --write-key-table)"]


def check_metrics_table(table, write):
    """Findings when docs/metrics.md's table is not `table` (rewritten when `write`)."""
    document = ROOT / "docs" / "metrics.md"
    lines = document.read_text().splitlines(keepends=True)
    begin = next((i for i, line in enumerate(lines) if line.startswith(METRICS_TABLE_BEGIN)), None)
    end = next((i for i in range(begin or 0, len(lines)) if lines[i].startswith(METRICS_TABLE_END)), None)
    if begin is None or end is None:
        return [f"{document.relative_to(ROOT)}: no metrics table between '{METRICS_TABLE_BEGIN} …' and '{METRICS_TABLE_END} …' lines"]
    if "".join(lines[begin + 1:end]) == table:
        return []
    if write:
        document.write_text("".join(lines[:begin + 1]) + table + "".join(lines[end:]))
        return []
    return [f"{document.relative_to(ROOT)}:{begin + 2}: the metrics table differs from `wearable-gateway metrics-reference` "
            "(rewrite it: scripts/check-docs.py --write-metrics-table)"]


def alert_expressions(text):
    """{alert name: its expr} of a Prometheus rule file (an expr on one line, or a block scalar
    `expr: |` / `expr: >` over the lines indented under it)."""
    expressions, alert = {}, None
    lines = text.splitlines()
    for number, line in enumerate(lines):
        named = re.match(r"\s*- (alert|record): (\S+)", line)
        if named:
            alert = named.group(2) if named.group(1) == "alert" else None
            continue
        expr = re.match(r"(\s*)expr: ?(.*)$", line)
        if not expr or alert is None:
            continue
        value = expr.group(2)
        if re.fullmatch(r"[|>][-+]?", value.strip()):
            indent = len(expr.group(1))
            block = []
            for following in lines[number + 1:]:
                if following.strip() and len(following) - len(following.lstrip()) <= indent:
                    break
                block.append(following)
            value = "\n".join(block)
        expressions[alert] = value
    return expressions


def required_alert(family):
    """Why `family` must be selected by an alert: the reason of the first key of `MUST_ALERT`
    that matches its whole name, or None."""
    return next((why for pattern, why in MUST_ALERT.items() if re.fullmatch(pattern, family)), None)


def check_alert_coverage(families):
    """Findings for the families of `families` (the catalog's names) that `MUST_ALERT` requires
    and that are in no alert's expression of config/prometheus/alerts.yml, and for stale entries
    of `MUST_ALERT` and `EXEMPT`."""
    path = ROOT / "config" / "prometheus" / "alerts.yml"
    selected = {}
    for alert, expression in alert_expressions(path.read_text()).items():
        try:
            names = promql_metric_names(expression)
        except ValueError:
            continue  # check_queries names the expression that does not parse
        for name in names:
            selected.setdefault(name, []).append(alert)
    findings = []
    for family in families:
        why = required_alert(family)
        if why is None:
            continue
        if family in EXEMPT:
            if family in selected:
                findings.append(f"scripts/check-docs.py: `{family}` is exempt from alerts but {', '.join(selected[family])} uses it: "
                                "remove it from EXEMPT")
        elif family not in selected:
            remedy = "" if family in MUST_ALERT else ", or list it in EXEMPT of scripts/check-docs.py with why it needs none"
            findings.append(f"{path.relative_to(ROOT)}: no alert's expr uses `{family}` ({why}): add one, "
                            f"with its runbook in docs/operations.md{remedy}")
    named = [key for key in MUST_ALERT if re.fullmatch(r"[a-z_:][a-z0-9_:]*", key)]
    findings += [f"scripts/check-docs.py: MUST_ALERT names `{family}`, which is no family of the catalog" for family in named if family not in families]
    findings += [f"scripts/check-docs.py: EXEMPT names `{family}`, which is no family of the catalog" for family in EXEMPT if family not in families]
    findings += [f"scripts/check-docs.py: EXEMPT names `{family}`, which MUST_ALERT names too: it needs an alert" for family in EXEMPT if family in MUST_ALERT]
    findings += [f"scripts/check-docs.py: EXEMPT names `{family}`, which no pattern of MUST_ALERT requires: remove it"
                 for family in EXEMPT if family in families and required_alert(family) is None]
    return findings


def promql_metric_names(expression):
    """The metric names a PromQL expression selects: each vector selector's name, or its
    `__name__="…"` matcher (one that matches names by a regular expression names none), as
    promql-parser parses it. ValueError when it is no PromQL."""
    import promql_parser
    names = []

    def selector(node):
        if isinstance(node, promql_parser.VectorSelector):
            if node.name:
                names.append(node.name)
            else:
                names.extend(m.value for m in node.matchers.matchers if m.name == "__name__" and m.op == promql_parser.MatchOp.Equal)

    promql_parser.walk(promql_parser.parse(expression), pre_visit=selector)
    return names


# Grafana's interval variables stand where PromQL has a duration (`[$__rate_interval]`).
GRAFANA_INTERVAL = re.compile(r"\$\{?__(?:rate_interval|interval|range)\}?")


def rule_fields(path, field):
    """(line, text) of the scalars under `field` in a Prometheus rule file: a rule's `expr`, or
    the values of its `annotations`."""
    import yaml
    found = []

    def visit(node, inside):
        if isinstance(node, yaml.ScalarNode) and inside:
            found.append((node.start_mark.line + 1, node.value))
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                visit(value, inside or key.value == field)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                visit(item, inside)

    visit(yaml.compose(path.read_text()), False)
    return found


def query_expressions(path):
    """(line, PromQL) of every query of a Grafana dashboard or a Prometheus rule file: a panel
    target's `expr`, the selector of a Prometheus template variable's `label_values(selector,
    label)` and the query of its `query_result(query)`, with Grafana's interval variables as 1m;
    each rule's `expr`. `line` is where the query is written (None when it cannot be found)."""
    if path.suffix != ".json":
        return rule_fields(path, "expr")
    text = path.read_text()
    queries = []

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("expr"), str):
                queries.append((node["expr"], node["expr"]))
            datasource = node.get("datasource")
            prometheus = not isinstance(datasource, dict) or datasource.get("type", "prometheus") == "prometheus"
            if node.get("type") == "query" and prometheus and "query" in node:
                query = node["query"].get("query", "") if isinstance(node["query"], dict) else node["query"]
                variable = re.fullmatch(r"\s*(?:label_values\((.*),\s*[a-zA-Z_]\w*\s*\)|query_result\((.*)\))\s*", query, re.S)
                if variable:
                    queries.append((query, variable.group(1) or variable.group(2)))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(json.loads(text))
    found, cursor = [], 0
    for written, query in queries:
        encoded = json.dumps(written, ensure_ascii=False)
        position = text.find(encoded, cursor)
        if position < 0:
            position = text.find(encoded)
        else:
            cursor = position + len(encoded)
        found.append((text.count("\n", 0, position) + 1 if position >= 0 else None, GRAFANA_INTERVAL.sub("1m", query)))
    return found


def check_queries(sources):
    """Findings for queries of the dashboards and alert rules that do not parse as PromQL, and for
    metrics they select (or an alert's prose quotes) that the gateway does not register."""
    registered = set(re.findall(r'label: "([a-z_:][a-z0-9_:]*)"', sources)) | {"up"}
    findings, selected = [], []
    files = [*sorted((ROOT / "config" / "grafana").glob("*.json")), *sorted((ROOT / "config" / "prometheus").glob("*.yml"))]
    for path in files:
        for number, query in query_expressions(path):
            where = f"{path.relative_to(ROOT)}:{number}" if number else str(path.relative_to(ROOT))
            try:
                selected += [(where, metric, "") for metric in promql_metric_names(query)]
            except ValueError as error:
                findings.append(f"{where}: the query does not parse as PromQL ({error}): {query}")
        # The alerts' prose: a selector it quotes (`name{...}`, outside `{{ }}` templates) names a metric too.
        for number, text in rule_fields(path, "annotations") if path.suffix == ".yml" else []:
            selected += [(f"{path.relative_to(ROOT)}:{number}", metric, " (in an annotation)")
                         for metric in re.findall(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\{", re.sub(r"\{\{.*?\}\}", "", text))]
    for where, metric, what in selected:
        if metric not in registered and re.sub(r"_(bucket|sum|count)$", "", metric) not in registered:
            findings.append(f"{where}: metric `{metric}`{what} is not registered under Sources/")
    return findings


def slug(heading):
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def check_runbooks():
    """Findings for alerts without a runbook_url, with one that is not docs/operations.md#<anchor>
    (relative: the generated files add the base), or whose anchor is no heading of docs/operations.md;
    and when the files generated from the rules are out of date or use another base."""
    anchors = {slug(line.lstrip("#")) for line in (ROOT / "docs" / "operations.md").read_text().splitlines() if re.match(r"#+ ", line)}
    path = ROOT / "config" / "prometheus" / "alerts.yml"
    findings = []
    # One block per rule, from its "- alert:" line to the next rule.
    for block in re.split(r"\n(?=\s*- (?:alert|record):)", path.read_text()):
        alert = re.search(r"- alert: (\S+)", block)
        if not alert:
            continue
        url = re.search(r'runbook_url: "?([^"\s]+)"?', block)
        if not url:
            findings.append(f"{path.relative_to(ROOT)}: alert {alert.group(1)} has no runbook_url annotation")
        elif not url.group(1).startswith("docs/operations.md#"):
            findings.append(f"{path.relative_to(ROOT)}: alert {alert.group(1)}: runbook_url {url.group(1)} is not docs/operations.md#<anchor> "
                            "(relative: scripts/make-prometheusrule.py adds the base to the files it generates)")
        elif url.group(1).split("#", 1)[1] not in anchors:
            findings.append(f"{path.relative_to(ROOT)}: alert {alert.group(1)}: runbook_url {url.group(1)} is no section of docs/operations.md")
    generated = subprocess.run([sys.executable, str(ROOT / "scripts" / "make-prometheusrule.py"), "--check"], capture_output=True, text=True)
    if generated.returncode != 0:
        findings += (generated.stderr.strip() or "scripts/make-prometheusrule.py --check failed").splitlines()
    return findings


def check_rate_intervals():
    """Findings for rate()/irate()/increase() ranges of the Grafana dashboards that are not $__rate_interval."""
    findings = []
    for path in sorted((ROOT / "config" / "grafana").glob("*.json")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            for expression in re.findall(r'"expr": "((?:[^"\\]|\\.)*)"', line):
                for match in re.finditer(r"\[([^\]]+)\]", expression):
                    # The function whose parenthesis encloses the range: the nearest "(" not closed before it.
                    depth, function = 0, None
                    for position in range(match.start() - 1, -1, -1):
                        if expression[position] == ")":
                            depth += 1
                        elif expression[position] == "(":
                            if depth == 0:
                                function = re.search(r"(\w*)$", expression[:position]).group(1)
                                break
                            depth -= 1
                    if function in ("rate", "irate", "increase") and match.group(1) != "$__rate_interval":
                        findings.append(f"{path.relative_to(ROOT)}:{number}: {function}() over [{match.group(1)}]: use [$__rate_interval]")
    return findings


def package_targets():
    """Package.swift's targets outside Tests/ (what the README's table maps) and its product names."""
    manifest = (ROOT / "Package.swift").read_text()
    targets = set()
    calls = re.split(r"\.(?=(?:target|executableTarget|systemLibrary|testTarget|binaryTarget|plugin|macro)\()", manifest)
    for call in calls[1:]:
        kind = call.split("(", 1)[0]
        name = re.search(r'name:\s*"([^"]+)"', call)
        if name and kind != "testTarget" and not re.search(r'path:\s*"Tests/', call):
            targets.add(name.group(1))
    products = set(re.findall(r'\.(?:executable|library)\(\s*name:\s*"([^"]+)"', manifest))
    return targets, products


def check_architecture_table():
    """Findings when README.md's architecture table misses a target or names one that does not exist."""
    targets, products = package_targets()
    lines = (ROOT / "README.md").read_text().splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("## Architecture")), None)
    if start is None:
        return ["README.md: no '## Architecture' section"]
    named = {}
    for number in range(start + 1, len(lines)):
        line = lines[number]
        if line.startswith("## "):
            break
        if line.startswith("| `"):
            for name in re.findall(r"`([^`]+)`", line.split("|")[1]):
                named.setdefault(name, number + 1)
    findings = [f"README.md:{number}: the architecture table names `{name}`, which is no target or product of Package.swift"
                for name, number in named.items() if name not in targets and name not in products]
    findings += [f"README.md:{start + 1}: the architecture table lacks the target `{name}` of Package.swift" for name in sorted(targets - set(named))]
    return findings


GENERATED_PATHS = ("config/mosquitto/pki/", ".build/")  # made by scripts/make-dev-pki.sh and the build


def example_commands():
    """(where, command) of every command line that runs something under Examples/: in the fenced
    blocks of the Markdown files and in the indented usage lines of the Examples' Python docstrings,
    with backslash continuations joined."""
    found = []
    sources = [*((path, True) for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(ROOT.glob("*/README.md"))]),
               *((path, False) for path in sorted((ROOT / "Examples").rglob("*.py")) if ".build" not in path.parts)]
    for path, markdown in sources:
        lines = path.read_text().splitlines()
        fenced, number = False, 0
        while number < len(lines):
            line, start = lines[number], number + 1
            if markdown and line.lstrip().startswith("```"):
                fenced = not fenced
                number += 1
                continue
            command = line
            while command.rstrip().endswith("\\") and number + 1 < len(lines):
                number += 1
                command = command.rstrip()[:-1] + " " + lines[number].strip()
            number += 1
            in_usage = not markdown and re.match(r"\s{4}\S", command) and "Examples/" in command
            if (fenced or in_usage) and re.search(r"(?<![\w/.-])Examples/", command):
                found.append((f"{path.relative_to(ROOT)}:{start}", command.split("#", 1)[0] if markdown else command))
    return found


def check_example_commands():
    """Findings for Examples' commands that name a missing path or a flag their script does not define."""
    findings = []
    for where, command in example_commands():
        script = None
        for path in re.findall(r"(?<![\w/.$-])((?:Examples|scripts|config|contract|docs|Benchmarks|Tests)/[\w./-]*\w)", command):
            if path.startswith(GENERATED_PATHS):
                continue
            if not (ROOT / path).exists():
                findings.append(f"{where}: `{path}` does not exist")
            elif path.startswith("Examples/") and path.endswith(".py") and script is None:
                script = ROOT / path
        if script is None:
            continue
        defined = "\n".join(p.read_text() for p in script.parent.glob("*.py"))
        for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", command.split(script.name, 1)[1]):
            if f'"{flag}"' not in defined:
                findings.append(f"{where}: {script.relative_to(ROOT)} defines no flag {flag}")
    return findings


def check_type_names(code):
    """Findings for backticked type names in `TYPE_CHECKED` that `code` (Swift sources) does not declare."""
    types = set(re.findall(r"\b(?:struct|class|enum|protocol|actor|typealias|extension)\s+([A-Z][A-Za-z0-9_]*)", code))
    targets = set(re.findall(r'name:\s*"([A-Za-z]+)"', (ROOT / "Package.swift").read_text()))
    findings = []
    for name in TYPE_CHECKED:
        for number, line in enumerate((ROOT / name).read_text().splitlines(), start=1):
            for token in re.findall(r"`([^`]+)`", line):
                match = re.fullmatch(r"([A-Z][A-Za-z0-9]*(?:\.[A-Za-z][A-Za-z0-9]*)*)(?:\(.*\))?", token.strip())
                if not match or match.group(1) in targets or token.endswith((".swift", ".md", ".hpp", ".resolved")):
                    continue
                for part in match.group(1).split("."):
                    if part in FOREIGN_TYPES:
                        continue
                    if part[0].isupper() and part not in types:
                        findings.append(f"{name}:{number}: `{token}` names no type declared in Sources/ or Tests/ ({part})")
                    elif part[0].islower() and not re.search(rf"\b{part}\b", code):
                        findings.append(f"{name}:{number}: `{token}`: {part} is spelled nowhere in Sources/ or Tests/")
    return findings


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=str(ROOT / ".build" / "debug"), help="directory of the built executables")
    parser.add_argument("--write-key-table", action="store_true", help="replace docs/configuration.md's key table with config-keys' output")
    parser.add_argument("--write-metrics-table", action="store_true", help="replace docs/metrics.md's table with metrics-reference's output")
    options = parser.parse_args()
    in_virtual_environment(__file__, ROOT / "scripts" / "check-docs-requirements.txt", ("promql_parser", "yaml"))
    binaries = pathlib.Path(options.bin)

    key_table = run([str(binaries / "wearable-gateway"), "config-keys"])
    keys = set(re.findall(r"^\| `([^`]+)` \| `(WG_[A-Z0-9_]+)`", key_table, re.M))
    key_paths = {path for path, _ in keys}
    key_variables = {variable for _, variable in keys}
    if not key_paths:
        sys.exit(f"error: `{binaries / 'wearable-gateway'} config-keys` printed no keys (build first)")

    findings = check_key_table(key_table, options.write_key_table)
    metrics_table = run([str(binaries / "wearable-gateway"), "metrics-reference"])
    families = re.findall(r"^\| `([a-z_:][a-z0-9_:]*)` \|", metrics_table, re.M)
    if families:
        findings += check_metrics_table(metrics_table, options.write_metrics_table)
        findings += check_alert_coverage(families)
    else:
        findings.append(f"`{binaries / 'wearable-gateway'} metrics-reference` printed no families (build first): "
                        "the metrics table and the alerts on losses and failures were not checked")

    help_text = ""
    for executable in ("wearable-gateway", "wearable-sim"):
        top = run([str(binaries / executable), "--help"])
        help_text += top
        section = top.split("SUBCOMMANDS:", 1)[1] if "SUBCOMMANDS:" in top else ""
        for subcommand in re.findall(r"^  ([a-z][a-z-]*)", section, re.M):
            help_text += run([str(binaries / executable), subcommand, "--help"])
    flags = set(re.findall(r"(--[a-z][a-z0-9-]*)", help_text))

    sources = "\n".join(p.read_text(errors="replace") for p in (ROOT / "Sources").rglob("*") if p.suffix in (".swift", ".c", ".cpp", ".h", ".hpp"))
    scripts = "\n".join(p.read_text(errors="replace") for d in ("scripts", "Benchmarks", "Tests", ".ci") for p in (ROOT / d).rglob("*")
                        if p.is_file() and p.suffix in (".sh", ".py", ".swift", "") and ".build" not in p.parts)
    literals = set(re.findall(r'"([a-z_][a-z0-9_]*)"', sources))
    # The shared store's tables (PostgresSchema) share the metrics' prefix: spelled in Sources/ too.
    literals |= set(re.findall(r"CREATE TABLE (?:IF NOT EXISTS )?([a-z_][a-z0-9_]*)", sources))
    # Removed keys (GatewayConfiguration.removedKeys: `"cluster.shareState": "removed: …"`) may be
    # named where the docs say they were removed; the loader refuses them with that reason.
    removed_keys = set(re.findall(r'"([a-z][A-Za-z]*(?:\.[a-z][A-Za-z0-9]*)+)":\s*"removed', sources))

    markdown = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "Examples").rglob("*.md"))]
    for document in markdown:
        if ".build" in document.parts:
            continue
        for number, line in enumerate(document.read_text().splitlines(), start=1):
            for token in re.findall(r"`([^`]+)`", line):
                where = f"{document.relative_to(ROOT)}:{number}"
                name = token.strip()
                # configuration keys (maybe with "=value" or ": value")
                candidate = re.split(r"[=: ]", name, maxsplit=1)[0]
                is_file_name = candidate.rsplit(".", 1)[-1] in ("sqlite", "yml", "yaml", "json", "bin", "conf", "md", "sh", "py", "swift", "db", "log", "crt", "key", "pem")
                if re.fullmatch(r"[a-z][A-Za-z]*(\.[a-z][A-Za-z0-9]*)+", candidate) and candidate.split(".")[0] in KEY_SECTIONS and not is_file_name:
                    if candidate not in key_paths and candidate not in removed_keys and not any(path.startswith(candidate + ".") for path in key_paths):
                        findings.append(f"{where}: configuration key `{candidate}` is not in the key table")
                    continue
                metric = re.sub(r"\{.*$", "", name)
                if metric.startswith(METRIC_PREFIXES) and re.fullmatch(r"[a-z_][a-z0-9_]*", metric):
                    base = re.sub(r"_(bucket|sum|count)$", "", metric)
                    if metric not in literals and base not in literals:
                        findings.append(f"{where}: metric `{metric}` is not spelled in Sources/")
                    continue
                if re.fullmatch(r"--[a-z][a-z0-9-]*([ =].*)?", name) or is_command(name):
                    findings += check_flags(name, where, flags, scripts)
                for variable in re.findall(r"\b(WG_[A-Z0-9_]+)\b", name):
                    if variable not in key_variables and variable not in sources and variable not in scripts:
                        findings.append(f"{where}: environment variable `{variable}` is neither a key's nor used in the code")
        fenced = False
        for number, line in enumerate(document.read_text().splitlines(), start=1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
            elif fenced and is_command(line.strip()):
                findings += check_flags(line, f"{document.relative_to(ROOT)}:{number}", flags, scripts)
    library = (ROOT / "scripts" / "lib.sh").read_text()
    for variable in ("WG_BUILD_PACKAGES", "WG_TEST_PACKAGES"):
        packages = re.search(rf"^{variable}=\(([^)]*)\)", library, re.M)
        if not packages:
            findings.append(f"scripts/lib.sh: no {variable}=(...) list")
            continue
        spelled = " ".join(packages.group(1).split())
        for document in (ROOT / "README.md", ROOT / "docs" / "operations.md"):
            if f"`{spelled}`" not in document.read_text():
                findings.append(f"{document.relative_to(ROOT)}: does not list {variable} of scripts/lib.sh as `{spelled}`")
    findings += check_queries(sources)
    findings += check_runbooks()
    findings += check_rate_intervals()
    findings += check_architecture_table()
    findings += check_example_commands()
    findings += check_type_names("\n".join(p.read_text(errors="replace") for d in ("Sources", "Tests") for p in (ROOT / d).rglob("*.swift")))
    for finding in findings:
        print(finding)
    print(f"docs check: {len(findings)} findings in {len(markdown)} Markdown files "
          f"({len(key_paths)} keys, {len(families)} metric families, {len(flags)} flags known)")
    sys.exit(1 if findings else 0)


if __name__ == "__main__":
    main()
