#!/usr/bin/env python3
"""Checks the compose files without a container engine (scripts/test.sh runs it after a build).

Two application models: docker-compose.yml alone (broker, gateway, simulator) and
docker-compose.yml with the override docker-compose.full.yml (the full stack), merged here as
the compose specification's "Merge and override" says (mappings merged, command, entrypoint and
healthcheck.test replaced, other sequences appended, volumes, secrets and configs by target,
ports by ip, target, published port and protocol).

- the schema: each file and each merged model against the compose specification's JSON Schema,
  scripts/compose-spec.json (SCHEMA_SOURCE; the file is kept byte for byte, SCHEMA_SHA256);
- a fresh clone has what they mount: a copy of the files git tracks (or would: untracked files
  not ignored) under config/ and scripts/ is made, `scripts/compose-up.sh --prepare` is run in
  it (the development identities and passwords), and every bind mount's source, every secret's
  file and the build context's Dockerfile must be there;
- each service as the container sees it: its bind mounts, secrets and named volumes laid out in
  a temporary directory (and, for the project's image, config/ at /etc/wearable-gateway and the
  Dockerfile's ENV lines); every absolute path its command, healthcheck or environment names
  below a mount must exist there, and so must the files the broker's configuration, Grafana's
  provisioning and PostgreSQL's init scripts name;
- every `wearable-gateway run` service passes `wearable-gateway check-config` with its command's
  flags and its environment (the build's binary, --bin);
- every service depends only on services of the model, names only declared volumes and secrets,
  and an image that is not built here is pinned by a tag (not latest; in docker-compose.full.yml a
  version with a minor number); every service docker-compose.full.yml adds has a healthcheck;
- clustered instances (WG_CLUSTER_MODE partitioned): at least two, distinct instance names, a
  volume of their own at /var/lib/wearable-gateway, the event history on, a healthcheck on
  /healthz of their HTTP port, the store on a service of the model whose POSTGRES_USER,
  POSTGRES_DB and password secret are those of store.url and store.passwordFile;
- Prometheus: `promtool check config` (the rule files included) as the container sees it, the
  configuration equal to config/prometheus/prometheus.yml but for the targets, the targets exactly
  the gateway services on their HTTP port, every rule file the shipped
  config/prometheus/alerts.generated.yml;
- Grafana: the provisioning files parse (apiVersion 1); every dashboard of config/grafana/ is
  provisioned from the provider's path; every data source type the dashboards ask for is
  provisioned; the Prometheus data source's URL is the Prometheus service, the PostgreSQL one's
  the store service with its database, and its user a role an init script of that service creates.

What none of this does: start a container, pull an image, or run PostgreSQL, Prometheus or
Grafana from the compose files (docs/operations.md, "The full stack", says what was run).

Runs in the virtual environment $WG_REPO_ROOT/.build/pytest-venv (made when missing, as
scripts/test.sh does) with the pinned jsonschema and PyYAML of scripts/contract-requirements.txt.
Usage: scripts/check-compose.py [--bin DIR]   (DIR: the built executables, default .build/debug)
Exit status 1 and one line per finding.
"""
import argparse
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

from wg_venv import in_virtual_environment

ROOT = pathlib.Path(os.environ.get("WG_REPO_ROOT") or pathlib.Path(__file__).resolve().parent.parent)
REQUIREMENTS = ROOT / "scripts" / "contract-requirements.txt"
SCHEMA = ROOT / "scripts" / "compose-spec.json"
SCHEMA_SOURCE = ("github.com/compose-spec/compose-spec, schema/compose-spec.json as of commit "
                 "a08f8d51631b7127ddac3d2c65537db429d0f1d0 (2025-10-28), Apache-2.0 (NOTICE)")
SCHEMA_SHA256 = "1f91e091f16b2dd50ab8860e02bb391d22df553d91c145eacedb1b6eff9c3f0e"
BASE, FULL = "docker-compose.yml", "docker-compose.full.yml"
MODELS = {BASE: [BASE], f"{BASE} + {FULL}": [BASE, FULL]}
# What a fresh clone must hold for the compose files, copied for `compose-up.sh --prepare`.
CLONE_PARTS = ("config/", "scripts/compose-up.sh", "scripts/make-dev-pki.sh", "Dockerfile")
IMAGE_CONFIG = ("/etc/wearable-gateway", "/srv/wearable-gateway/config")  # the image's config/ (Dockerfile)
SHIPPED_PROMETHEUS = ROOT / "config" / "prometheus" / "prometheus.yml"
SHIPPED_RULES = "config/prometheus/alerts.generated.yml"


# --- The model: short syntax read, files merged ------------------------------------------------

def mount(entry):
    """(type, source, target) of a volumes: entry, short or long syntax."""
    if isinstance(entry, dict):
        return entry.get("type"), entry.get("source"), entry.get("target")
    parts = entry.split(":")
    if len(parts) == 1:
        return "volume", None, parts[0]
    source, target = parts[0], parts[1]
    return ("bind" if source.startswith((".", "/", "~")) else "volume"), source, target


def secret_target(entry):
    name = entry if isinstance(entry, str) else entry["source"]
    target = name if isinstance(entry, str) else entry.get("target", name)
    return name, target if target.startswith("/") else f"/run/secrets/{target}"


def port_key(entry):
    """(ip, target, published, protocol) of a ports: entry."""
    if isinstance(entry, dict):
        return entry.get("host_ip", ""), str(entry.get("target")), str(entry.get("published", "")), entry.get("protocol", "tcp")
    value, _, protocol = str(entry).partition("/")
    parts = value.split(":")
    target, published, ip = parts[-1], parts[-2] if len(parts) > 1 else "", ":".join(parts[:-2])
    return ip, target, published, protocol or "tcp"


UNIQUE = {"volumes": lambda e: mount(e)[2], "secrets": lambda e: secret_target(e)[1],
          "configs": lambda e: secret_target(e)[1], "ports": port_key}


def normalized(service):
    """The service with environment and depends_on as mappings (their list forms are equivalent)."""
    service = dict(service)
    if isinstance(service.get("environment"), list):
        service["environment"] = dict((item.split("=", 1) + [None])[:2] for item in service["environment"])
    if isinstance(service.get("depends_on"), list):
        service["depends_on"] = {name: {"condition": "service_started"} for name in service["depends_on"]}
    return service


def merge_mapping(base, override):
    result = dict(base)
    for key, value in override.items():
        old = result.get(key)
        if isinstance(old, dict) and isinstance(value, dict):
            result[key] = merge_mapping(old, value)
        elif isinstance(old, list) and isinstance(value, list):
            result[key] = old + [v for v in value if v not in old]
        else:
            result[key] = value
    return result


def merge_service(base, override):
    result = normalized(base)
    for key, value in normalized(override).items():
        old = result.get(key)
        if old is None or key in ("command", "entrypoint"):
            result[key] = value
        elif key == "healthcheck":
            result[key] = {**old, **value}  # test is replaced, not appended
        elif key in UNIQUE:
            unique = UNIQUE[key]
            merged = {unique(entry): entry for entry in old}
            merged.update({unique(entry): entry for entry in value})
            result[key] = list(merged.values())
        elif isinstance(old, dict) and isinstance(value, dict):
            result[key] = merge_mapping(old, value)
        elif isinstance(old, list) and isinstance(value, list):
            result[key] = old + value
        else:
            result[key] = value
    return result


def merge(base, override):
    result = merge_mapping({k: v for k, v in base.items() if k != "services"}, {k: v for k, v in override.items() if k != "services"})
    services = {name: normalized(service) for name, service in base.get("services", {}).items()}
    for name, service in override.get("services", {}).items():
        services[name] = merge_service(services[name], service) if name in services else normalized(service)
    result["services"] = services
    return result


# --- A fresh clone, and each container's view of it -------------------------------------------

def fresh_clone(work):
    """A copy of what a clone holds for the compose files, after `scripts/compose-up.sh --prepare`."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *CLONE_PARTS],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout.split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the work tree is not copied
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, work / name)
    result = subprocess.run(["bash", str(work / "scripts" / "compose-up.sh"), "--prepare"], capture_output=True, text=True)
    if result.returncode != 0:
        return [f"scripts/compose-up.sh --prepare failed in a copy of the repository: {(result.stdout + result.stderr).strip()}"]
    return []


def inside(root, path):
    return root / path.lstrip("/")


def image_environment():
    """{name: value} of the ENV lines of the Dockerfile's runtime stage (scripts/check-dockerfile.py reads it)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("check_dockerfile", ROOT / "scripts" / "check-dockerfile.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _, stages = module.stages(module.instructions((ROOT / "Dockerfile").read_text()))
    runtime = next(s for s in stages if s["name"] == "runtime")
    found = {}
    for _, word, arguments in runtime["instructions"]:
        if word == "ENV":
            name, _, value = arguments.partition("=")
            found[name.strip()] = value.strip()
    return found


def builds_project_image(service):
    return "build" in service or str(service.get("image", "")).startswith("wearable-gateway:")


class View:
    """A service's file system as its container would see it: bind mounts and secrets as links into
    the fresh clone, named volumes as empty directories, the project image's config/."""

    def __init__(self, root, clone, model, service):
        self.root, self.prefixes, self.volumes = root, [], []
        for entry in service.get("volumes", []):
            kind, source, target = mount(entry)
            if kind == "bind":
                self.link(target, clone / os.path.normpath(source))
            else:
                inside(root, target).mkdir(parents=True, exist_ok=True)
                self.volumes.append(target)
        for entry in service.get("secrets", []):
            name, target = secret_target(entry)
            file = model.get("secrets", {}).get(name, {}).get("file")
            if file:
                self.link(target, clone / os.path.normpath(file))
        if builds_project_image(service):
            for target in IMAGE_CONFIG:
                self.link(target, clone / "config")
        # compose mounts the service's secrets, and only them, in /run/secrets.
        inside(root, "/run/secrets").mkdir(parents=True, exist_ok=True)
        self.prefixes.append("/run/secrets")

    def link(self, target, source):
        path = inside(self.root, target)
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() and not path.is_symlink():
            path.symlink_to(source)
        self.prefixes.append(target.rstrip("/"))

    def covers(self, path):
        return any(path == p or path.startswith(p + "/") for p in self.prefixes)

    def missing(self, path):
        """True when `path` lies below a mount (not a named volume) and is not there."""
        if any(path == v or path.startswith(v.rstrip("/") + "/") for v in self.volumes):
            return False
        return self.covers(path) and not inside(self.root, path).exists()


def absolute_paths(values):
    for value in values:
        for word in re.split(r"[\s=,]+", str(value)):
            if word.startswith("/") and len(word) > 1:
                yield word.rstrip(";")


# --- Checks ------------------------------------------------------------------------------------

def check_schema(validator, document, where):
    findings = []
    for error in sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path))):
        path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        findings.append(f"{where}: {path}: {error.message}")
    return findings


def check_references(model, clone, added):
    findings = []
    services = model.get("services", {})
    for name, service in services.items():
        for dependency in service.get("depends_on", {}):
            if dependency not in services:
                findings.append(f"service {name}: depends on {dependency}, which is no service")
        for entry in service.get("volumes", []):
            kind, source, target = mount(entry)
            if kind == "volume" and source and source not in (model.get("volumes") or {}):
                findings.append(f"service {name}: volume {source} is not declared under volumes:")
            if kind == "bind" and not (clone / os.path.normpath(source)).exists():
                findings.append(f"service {name}: mounts {source} at {target}, which neither the repository holds nor "
                                "scripts/compose-up.sh --prepare makes")
        for entry in service.get("secrets", []):
            secret = secret_target(entry)[0]
            if secret not in (model.get("secrets") or {}):
                findings.append(f"service {name}: secret {secret} is not declared under secrets:")
        if "build" in service:
            context = service["build"] if isinstance(service["build"], str) else service["build"].get("context", ".")
            if not (clone / os.path.normpath(context) / "Dockerfile").is_file():
                findings.append(f"service {name}: no Dockerfile in its build context {context}")
        else:
            image = str(service.get("image", ""))
            tag = image.rpartition(":")[2] if ":" in image.rpartition("/")[2] else ""
            if not tag or tag == "latest":
                findings.append(f"service {name}: image {image!r} is not pinned by a tag")
            elif name in added and not re.search(r"\d+\.\d+", tag):
                findings.append(f"service {name}: image {image!r}: the tag names no version with a minor number")
        if name in added and not service.get("healthcheck", {}).get("test"):
            findings.append(f"service {name}: no healthcheck")
    for secret, definition in (model.get("secrets") or {}).items():
        file = (definition or {}).get("file")
        if file and not (clone / os.path.normpath(file)).is_file():
            findings.append(f"secret {secret}: its file {file} is neither in the repository nor made by scripts/compose-up.sh --prepare")
    return findings


def check_paths(name, service, view):
    """Absolute paths the service names below its mounts that are not there."""
    healthcheck = service.get("healthcheck", {}).get("test", [])
    named = [*(service.get("command") or []), *(healthcheck if isinstance(healthcheck, list) else [healthcheck]),
             *[v for v in (service.get("environment") or {}).values() if v is not None]]
    # Files the mounted configuration names: the broker's configuration, Grafana's provisioning,
    # PostgreSQL's init scripts.
    command = service.get("command") or []
    for index, word in enumerate(command[:-1]):
        if word == "-c" and view.covers(command[index + 1]):
            lines = inside(view.root, command[index + 1]).read_text().splitlines()
            named += [line.split(None, 1)[1] for line in lines if re.match(r"\s*(cafile|certfile|keyfile|acl_file|include_dir|password_file)\s+/", line)]
    for directory in ("/etc/grafana/provisioning", "/docker-entrypoint-initdb.d"):
        folder = inside(view.root, directory)
        if folder.is_dir():
            for file in sorted(folder.rglob("*")):
                if file.is_file():
                    text = file.read_text()
                    named += re.findall(r"\$__file\{([^}]+)\}", text) + re.findall(r"(/run/secrets/[\w.-]+)", text)
                    named += re.findall(r"^\s*path:\s*(/\S+)", text, re.M)
    return [f"service {name}: names {path}, which is not there in the container (below a mount of it)"
            for path in sorted(set(absolute_paths(named))) if view.missing(path)]


def check_gateway(name, service, view, binaries, image_env):
    """`wearable-gateway check-config` with the service's flags and environment, paths in its view."""
    command = service.get("command") or []
    if command[:2] != ["wearable-gateway", "run"]:
        return []
    gateway = binaries / "wearable-gateway"
    if not gateway.is_file():
        return [f"no {gateway}: build first (swift build) or pass --bin"]

    def local(value):
        value = str(value)
        return str(inside(view.root, value)) if value.startswith("/") else value

    environment = {k: v for k, v in os.environ.items() if not k.startswith("WG_")}
    for key, value in {**image_env, **(service.get("environment") or {})}.items():
        if value is not None:
            environment[key] = local(value)
    workdir = inside(view.root, "/srv/wearable-gateway")
    result = subprocess.run([str(gateway), "check-config", *[local(a) for a in command[2:]]], cwd=workdir, env=environment,
                            capture_output=True, text=True)
    output = (result.stdout + result.stderr).strip().replace(str(view.root), "")
    if result.returncode != 0:
        return [f"service {name}: wearable-gateway check-config exited {result.returncode}: {output}"]
    cluster = next((line.split(":", 1)[1].strip() for line in output.splitlines() if line.strip().startswith("cluster:")), "single mode")
    print(f"    service {name}: wearable-gateway check-config: valid, {cluster}")
    return []


def listen_port(service):
    listen = (service.get("environment") or {}).get("WG_HTTP_LISTEN", "127.0.0.1:9464")
    return int(str(listen).rpartition(":")[2])


def store_service(model, url):
    host = urllib.parse.urlsplit(url).hostname
    return host, model["services"].get(host)


def check_cluster(model):
    """Findings about the clustered instances and their store."""
    services = model["services"]
    instances = {n: s for n, s in services.items() if (s.get("environment") or {}).get("WG_CLUSTER_MODE") == "partitioned"}
    if not instances:
        return []
    findings = []
    if len(instances) < 2:
        findings.append(f"one clustered instance ({', '.join(instances)}): a cluster needs two")
    names, volumes, published = {}, {}, {}
    for name, service in instances.items():
        environment = service["environment"]
        names.setdefault(environment.get("WG_CLUSTER_INSTANCE"), []).append(name)
        data = [mount(e)[1] for e in service.get("volumes", []) if mount(e)[2] == "/var/lib/wearable-gateway" and mount(e)[0] == "volume"]
        if not data:
            findings.append(f"service {name}: no named volume at /var/lib/wearable-gateway (its journal)")
        for volume in data:
            volumes.setdefault(volume, []).append(name)
        for entry in service.get("ports", []):
            published.setdefault(port_key(entry)[2], []).append(name)
        if str(environment.get("WG_HISTORY_ENABLED", "auto")).lower() not in ("true", "auto"):
            findings.append(f"service {name}: WG_HISTORY_ENABLED is {environment.get('WG_HISTORY_ENABLED')}: the event history is off")
        test = " ".join(service.get("healthcheck", {}).get("test", []))
        if not re.search(rf":{listen_port(service)}/healthz\b", test):
            findings.append(f"service {name}: its healthcheck does not ask /healthz on port {listen_port(service)}: {test or 'none'}")
        url = environment.get("WG_STORE_URL", "")
        host, store = store_service(model, url)
        if store is None:
            findings.append(f"service {name}: WG_STORE_URL {url!r} names {host}, which is no service")
            continue
        parts, store_env = urllib.parse.urlsplit(url), store.get("environment") or {}
        if (parts.port or 5432) != 5432:
            findings.append(f"service {name}: WG_STORE_URL names port {parts.port}, PostgreSQL listens on 5432")
        if parts.username != store_env.get("POSTGRES_USER", "postgres"):
            findings.append(f"service {name}: WG_STORE_URL's user {parts.username} is not {host}'s POSTGRES_USER {store_env.get('POSTGRES_USER')}")
        if parts.path.lstrip("/") != store_env.get("POSTGRES_DB", store_env.get("POSTGRES_USER")):
            findings.append(f"service {name}: WG_STORE_URL's database {parts.path.lstrip('/')} is not {host}'s POSTGRES_DB {store_env.get('POSTGRES_DB')}")
        theirs = {secret_target(e)[1]: secret_target(e)[0] for e in store.get("secrets", [])}
        ours = {secret_target(e)[1]: secret_target(e)[0] for e in service.get("secrets", [])}
        password, server = ours.get(environment.get("WG_STORE_PASSWORD_FILE")), theirs.get(store_env.get("POSTGRES_PASSWORD_FILE"))
        if password is None or password != server:
            findings.append(f"service {name}: WG_STORE_PASSWORD_FILE ({environment.get('WG_STORE_PASSWORD_FILE')}) is not the secret "
                            f"{host}'s POSTGRES_PASSWORD_FILE reads ({store_env.get('POSTGRES_PASSWORD_FILE')})")
    for what, seen in (("instance name (WG_CLUSTER_INSTANCE)", names), ("volume", volumes), ("published port", published)):
        for value, holders in seen.items():
            if len(holders) > 1 or value is None:
                findings.append(f"services {', '.join(holders)}: {'no ' + what if value is None else f'one {what}, {value}'}")
    return findings


def gateway_targets(model):
    return {f"{n}:{listen_port(s)}" for n, s in model["services"].items() if (s.get("command") or [])[:2] == ["wearable-gateway", "run"]}


def check_prometheus(name, service, view, model, yaml):
    command = " ".join(service.get("command") or [])
    config = (re.search(r"--config\.file=(\S+)", command) or [None, "/etc/prometheus/prometheus.yml"])[1]
    local = inside(view.root, config)
    if not local.is_file():
        return [f"service {name}: no Prometheus configuration at {config}"]
    findings = []
    try:
        result = subprocess.run(["promtool", "check", "config", str(local)], capture_output=True, text=True)
    except FileNotFoundError:
        return ["promtool not found (Debian prometheus; scripts/lib.sh WG_TEST_PACKAGES)"]
    output = (result.stdout + result.stderr).strip().replace(str(view.root), "")
    if result.returncode != 0:
        findings.append(f"service {name}: promtool check config {config}: {output}")
    else:
        rules = re.findall(r"SUCCESS: (\d+) rules found", output)
        print(f"    service {name}: promtool check config {config}: valid, {sum(map(int, rules))} rules in {len(rules)} rule file(s)")
    ours, shipped = yaml.safe_load(local.read_text()), yaml.safe_load(SHIPPED_PROMETHEUS.read_text())
    targets = set()
    for document in (ours, shipped):
        for job in document.get("scrape_configs", []):
            for static in job.get("static_configs", []):
                if document is ours:
                    targets |= set(static.get("targets", []))
                static["targets"] = []
    if ours != shipped:
        findings.append(f"service {name}: {config} differs from config/prometheus/prometheus.yml in more than the targets")
    wanted = gateway_targets(model)
    if targets != wanted:
        findings.append(f"service {name}: Prometheus scrapes {sorted(targets)}, not the gateway services {sorted(wanted)}")
    sources = {mount(e)[2]: os.path.normpath(mount(e)[1]) for e in service.get("volumes", []) if mount(e)[0] == "bind"}
    for rule_file in ours.get("rule_files", []):
        target = os.path.normpath(os.path.join(os.path.dirname(config), rule_file))
        if sources.get(target) != SHIPPED_RULES:
            findings.append(f"service {name}: the rule file {target} is not the shipped {SHIPPED_RULES} (mounted: {sources.get(target)})")
    if not ours.get("rule_files"):
        findings.append(f"service {name}: {config} loads no alert rules")
    return findings


def dashboard_types(dashboard):
    """The data source types a dashboard asks for: its datasource variables' and its literal ones."""
    types = {v["query"] for v in dashboard.get("templating", {}).get("list", []) if v.get("type") == "datasource"}
    for panel in dashboard.get("panels", []):
        for source in [panel.get("datasource"), *[t.get("datasource") for t in panel.get("targets", [])]]:
            if isinstance(source, dict) and source.get("type") and not str(source.get("uid", "")).startswith("$"):
                types.add(source["type"])
    return types


def check_grafana(name, service, view, model, clone, yaml):
    findings = []
    provisioning = inside(view.root, "/etc/grafana/provisioning")
    datasources, providers = [], []
    for kind, collected, key in (("datasources", datasources, "datasources"), ("dashboards", providers, "providers")):
        files = sorted((provisioning / kind).glob("*.y*ml"))
        if not files:
            findings.append(f"service {name}: nothing provisioned in /etc/grafana/provisioning/{kind}")
        for file in files:
            try:
                document = yaml.safe_load(file.read_text())
            except yaml.YAMLError as error:
                findings.append(f"service {name}: /etc/grafana/provisioning/{kind}/{file.name}: {error}")
                continue
            if document.get("apiVersion") != 1:
                findings.append(f"service {name}: /etc/grafana/provisioning/{kind}/{file.name}: apiVersion is not 1")
            collected += document.get(key) or []
    sources = {mount(e)[2]: os.path.normpath(mount(e)[1]) for e in service.get("volumes", []) if mount(e)[0] == "bind"}
    provisioned, wanted_types = set(), set()
    for provider in providers:
        path = provider.get("options", {}).get("path", "")
        for target, source in sources.items():
            if target.startswith(path.rstrip("/") + "/") and target.endswith(".json"):
                provisioned.add(source)
                if (clone / source).is_file():
                    wanted_types |= dashboard_types(json.loads((clone / source).read_text()))
    shipped = {str(p.relative_to(ROOT)) for p in (ROOT / "config" / "grafana").glob("*.json")}
    for dashboard in sorted(shipped - provisioned):
        findings.append(f"service {name}: the shipped dashboard {dashboard} is not provisioned (mounted below a provider's path)")
    types = {d.get("type") for d in datasources}
    for kind in sorted(wanted_types - types):
        findings.append(f"service {name}: the dashboards ask for a data source of type {kind}; none is provisioned")
    for source in datasources:
        url = str(source.get("url", ""))
        host = urllib.parse.urlsplit(url if "//" in url else "//" + url)
        target = model["services"].get(host.hostname)
        if target is None:
            findings.append(f"service {name}: data source {source.get('name')}: {url} names no service")
        elif source.get("type") == "prometheus":
            command = " ".join(target.get("command") or [])
            port = int((re.search(r"--web\.listen-address=\S*:(\d+)", command) or [None, 9090])[1])
            if host.port != port:
                findings.append(f"service {name}: data source {source.get('name')}: port {host.port}, Prometheus listens on {port}")
        elif source.get("type") in ("grafana-postgresql-datasource", "postgres"):
            environment = target.get("environment") or {}
            if (host.port or 5432) != 5432:
                findings.append(f"service {name}: data source {source.get('name')}: port {host.port}, PostgreSQL listens on 5432")
            database = environment.get("POSTGRES_DB", environment.get("POSTGRES_USER"))
            if source.get("jsonData", {}).get("database") != database:
                findings.append(f"service {name}: data source {source.get('name')}: database {source.get('jsonData', {}).get('database')}, not {database}")
            scripts = [os.path.normpath(mount(e)[1]) for e in target.get("volumes", [])
                       if mount(e)[0] == "bind" and mount(e)[2].startswith("/docker-entrypoint-initdb.d/")]
            created = {role for script in scripts if (clone / script).is_file()
                       for role in re.findall(r"CREATE (?:ROLE|USER) (\w+)", (clone / script).read_text())}
            if source.get("user") not in created:
                findings.append(f"service {name}: data source {source.get('name')}: user {source.get('user')} is made by no init script of "
                                f"{host.hostname} (they make {sorted(created) or 'none'})")
    if not findings:
        print(f"    service {name}: Grafana provisions {len(datasources)} data sources ({', '.join(sorted(types))}) and {len(provisioned)} dashboard(s)")
    return findings


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=str(ROOT / ".build" / "debug"), help="directory of the built executables")
    options = parser.parse_args()
    in_virtual_environment(__file__, REQUIREMENTS, ("jsonschema", "yaml"))
    import jsonschema
    import yaml

    findings = []
    text = SCHEMA.read_bytes()
    if hashlib.sha256(text).hexdigest() != SCHEMA_SHA256:
        findings.append(f"scripts/compose-spec.json is not the pinned schema ({SCHEMA_SOURCE}; sha256 {SCHEMA_SHA256})")
    validator = jsonschema.Draft7Validator(json.loads(text))
    documents = {}
    for file in (BASE, FULL):
        documents[file] = yaml.safe_load((ROOT / file).read_text())
        findings += check_schema(validator, documents[file], file)
    image_env = image_environment()
    with tempfile.TemporaryDirectory() as work:
        work = pathlib.Path(work)
        clone = work / "clone"
        findings += fresh_clone(clone)
        for title, files in MODELS.items():
            model = documents[files[0]]
            for file in files[1:]:
                model = merge(model, documents[file])
            added = set(documents[FULL]["services"]) - set(documents[BASE]["services"]) if len(files) > 1 else set()
            model_findings = check_schema(validator, model, f"{title} (merged)") if len(files) > 1 else []
            model_findings += check_references(model, clone, added)
            model_findings += check_cluster(model)
            for name, service in model["services"].items():
                view = View(work / title.replace(" ", "") / name, clone, model, service)
                model_findings += check_paths(name, service, view)
                model_findings += check_gateway(name, service, view, pathlib.Path(options.bin), image_env)
                image = str(service.get("image", ""))
                if image.startswith("prom/prometheus:"):
                    model_findings += check_prometheus(name, service, view, model, yaml)
                if image.startswith("grafana/grafana:"):
                    model_findings += check_grafana(name, service, view, model, clone, yaml)
            print(f"    {title}: {len(model['services'])} services ({', '.join(model['services'])}), {len(model_findings)} findings")
            findings += [f"{title}: {finding}" for finding in model_findings]
    for finding in findings:
        print(finding)
    print(f"compose check: {len(findings)} findings in {BASE} and {FULL} (compose-spec schema {SCHEMA_SHA256[:12]}, jsonschema "
          f"{__import__('importlib.metadata').metadata.version('jsonschema')}; no container engine ran them)")
    sys.exit(1 if findings else 0)


if __name__ == "__main__":
    main()
