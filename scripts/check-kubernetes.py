#!/usr/bin/env python3
"""Checks the Kubernetes manifests of deploy/kubernetes/ (scripts/test.sh runs it after a build).

- every core resource (ConfigMap, Secret, Services, StatefulSet, PodDisruptionBudget,
  NetworkPolicy) against the Kubernetes API's schema with kubernetes-validate, strictly (unknown
  fields fail), for WG_KUBERNETES_VERSION (default 1.33.0); a kind it has no schema for fails too;
- the Prometheus Operator's custom resources (ServiceMonitor, PrometheusRule), which live in the
  kustomize Component prometheus-operator/, against the OpenAPI v3 schema of their
  CustomResourceDefinitions (spec.versions[].schema.openAPIV3Schema of the version their
  apiVersion names) with jsonschema, strictly (unknown fields fail, as `kubectl apply` refuses
  them); the CRDs are pinned in deploy/kubernetes/check-crds/ (SOURCE.txt: the release and each
  file's SHA-256, checked); a custom kind without a CRD there fails. What a schema cannot say:
  the PrometheusRule is what scripts/make-prometheusrule.py makes from
  config/prometheus/alerts.yml, and its rules pass `promtool check rules`; the ServiceMonitor
  selects the metrics Service, scrapes one of its ports, and its jobLabel gives the job the alert
  rules select;
- kustomization.yaml lists exactly the manifests of the directory, and no custom resource; each
  subdirectory is a Component (kustomize.config.k8s.io/v1alpha1) that lists exactly its own
  manifests and is off by default (not under the kustomization's components:); with kubectl on
  the PATH, `kubectl kustomize` renders the directory without the component's kinds and, in an
  overlay that lists the component, with them;
- the pieces refer to each other: Services select the pods and name container ports, the
  StatefulSet's serviceName is a headless Service, the ConfigMap and the Secret keys it mounts
  exist, the probes ask /healthz and /readyz, cluster.instance comes from the pod's name, and
  terminationGracePeriodSeconds exceeds the shutdown bound of the ConfigMap's gateway.yml
  (2 x pipeline.drainTimeout plus the hand-over); the pod mounts no service account token and
  spreads over kubernetes.io/hostname; the NetworkPolicy selects the pods, isolates both
  directions, admits the metrics and HTTP ports by a selector each, and lets out DNS (UDP and
  TCP 53), the broker's port (mqtt.broker of the ConfigMap) and PostgreSQL's (the Secret's
  store-url);
- the ConfigMap's gateway.yml passes `wearable-gateway check-config` (the build's binary, with
  development identities and a password file standing in for the Secret's files);
- checkov (--framework kubernetes, pinned in deploy/kubernetes/checkov-requirements.txt, in its
  own virtual environment .build/checkov-venv) on the manifests and the component, not on
  check-crds/: no check fails except those of CHECKOV_SKIPS, each with its reason; each of those
  still fails somewhere (a check that passes leaves the list); no manifest skips a check itself
  (a checkov.io/skip annotation); docs/kubernetes.md's table of skipped checks names the same ids.

Runs in the virtual environment $WG_REPO_ROOT/.build/pytest-venv (made when missing, as
scripts/test.sh does), with the pinned packages of deploy/kubernetes/check-requirements.txt;
run by the Python of another virtual environment that has them, it stays there
(scripts/wg_venv.py). checkov runs in .build/checkov-venv (made or filled likewise).
Usage: scripts/check-kubernetes.py [--bin DIR]   (DIR: the built executables, default .build/debug)
Exit status 1 and one line per finding when something is wrong.
"""
import argparse
import copy
import hashlib
import importlib.metadata
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

from wg_venv import in_virtual_environment, tool_environment

ROOT = pathlib.Path(os.environ.get("WG_REPO_ROOT") or pathlib.Path(__file__).resolve().parent.parent)
MANIFESTS = ROOT / "deploy" / "kubernetes"
REQUIREMENTS = MANIFESTS / "check-requirements.txt"
CRDS = MANIFESTS / "check-crds"  # the Prometheus Operator's CRDs, pinned (SOURCE.txt)
KUBERNETES_VERSION = os.environ.get("WG_KUBERNETES_VERSION", "1.33.0")
CUSTOM_KINDS = {"ServiceMonitor", "PrometheusRule"}  # the Prometheus Operator's: validated against check-crds/, not kubernetes-validate
COMPONENT_API = "kustomize.config.k8s.io/v1alpha1"
JOB = "wearable-gateway"  # the job label config/prometheus/alerts.yml selects
CHECKOV_REQUIREMENTS = MANIFESTS / "checkov-requirements.txt"
CHECKOV_TIMEOUT = 300  # seconds; a run takes about 2.5 s
CHECKOV_DOC = ROOT / "docs" / "kubernetes.md"  # its table of skipped checks lists these ids
# The checkov checks that fail on these manifests by choice, each with why it is not fixed. Any
# other failing check is a finding, and so is an id here that no longer fails anywhere.
CHECKOV_SKIPS = {
    "CKV_K8S_21": "the manifests name no namespace: whoever applies them picks it (kubectl -n, or namespace: in an overlay)",
    "CKV_K8S_43": "the project publishes no image, so there is no digest to pin: an overlay's images: digest: pins the one you pushed",
    "CKV_K8S_15": "IfNotPresent with a release tag: Always would make every container start, a liveness restart too, fail while the registry is unreachable",
    "CKV_K8S_35": "WG_STORE_URL holds no password (store.passwordFile reads it from the mounted Secret) and store.url has no file form",
}


def listed_files(directory, listed, what):
    """Findings where the `resources:` of `what` and the manifests of `directory` differ."""
    present = sorted(p.name for p in directory.glob("*.yaml") if p.name != "kustomization.yaml")
    findings = [f"{what} does not list {name}" for name in sorted(set(present) - set(listed))]
    findings += [f"{what} lists {name}, which is not in {directory.relative_to(ROOT)}" for name in sorted(set(listed) - set(present))]
    return [name for name in listed if name in present], findings


def load_manifests(yaml):
    """{file name relative to deploy/kubernetes: [documents]} of the kustomization's manifests and
    of its components' (the subdirectories), findings about the lists, and the components' names."""
    kustomization = yaml.safe_load((MANIFESTS / "kustomization.yaml").read_text())
    files, findings = listed_files(MANIFESTS, kustomization.get("resources", []), "kustomization.yaml")
    names = list(files)
    components = sorted(p.parent.name for p in MANIFESTS.glob("*/kustomization.yaml"))
    for component in components:
        where = f"{component}/kustomization.yaml"
        document = yaml.safe_load((MANIFESTS / where).read_text())
        if document.get("kind") != "Component" or document.get("apiVersion") != COMPONENT_API:
            findings.append(f"{where}: not a kustomize Component ({document.get('apiVersion')} {document.get('kind')}, not {COMPONENT_API} Component)")
        if component in kustomization.get("components", []):
            findings.append(f"kustomization.yaml lists the component {component}: it is off by default (it needs its CRDs)")
        component_files, component_findings = listed_files(MANIFESTS / component, document.get("resources", []), where)
        findings += component_findings
        names += [f"{component}/{name}" for name in component_files]
    documents = {name: [d for d in yaml.safe_load_all((MANIFESTS / name).read_text()) if d] for name in names}
    for name in files:
        for resource in documents[name]:
            if resource.get("kind") in CUSTOM_KINDS:
                findings.append(f"{name}: {resource['kind']} in the kustomization's own resources: "
                                "it belongs in a component (a cluster without its CRD would refuse it)")
    return documents, findings, components


def render_with_kustomize(components, documents):
    """Findings of `kubectl kustomize` on the directory, without and with each component
    (an overlay in a temporary directory); none, and a note, without kubectl."""
    kubectl = shutil.which("kubectl")
    if not kubectl:
        print("    kubectl kustomize: skipped (no kubectl on the PATH)")
        return []
    import yaml
    findings = []

    def kinds(directory):
        result = subprocess.run([kubectl, "kustomize", str(directory)], capture_output=True, text=True)
        if result.returncode != 0:
            findings.append(f"kubectl kustomize {directory}: {result.stderr.strip()}")
            return None
        return sorted(d["kind"] for d in yaml.safe_load_all(result.stdout) if d)

    base = kinds(MANIFESTS)
    own = sorted(r["kind"] for name, rs in documents.items() if "/" not in name for r in rs)
    if base is not None and base != own:
        findings.append(f"kubectl kustomize renders {base}, not the kustomization's own resources {own}")
    for component in components:
        with tempfile.TemporaryDirectory() as overlay:
            (pathlib.Path(overlay) / "kustomization.yaml").write_text(yaml.safe_dump({
                "apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
                "resources": [os.path.relpath(MANIFESTS, overlay)],  # kustomize takes no absolute paths
                "components": [os.path.relpath(MANIFESTS / component, overlay)]}))
            rendered = kinds(overlay)
        added = sorted(r["kind"] for name, rs in documents.items() if name.startswith(f"{component}/") for r in rs)
        if rendered is not None and base is not None and rendered != sorted(base + added):
            findings.append(f"kubectl kustomize with the component {component} renders {rendered}, not {sorted(base + added)}")
    if not findings:
        print(f"    kubectl kustomize: {len(base or [])} resources; with {', '.join(components) or 'no component'} as components also {', '.join(sorted({r['kind'] for n, rs in documents.items() if '/' in n for r in rs}))}")
    return findings


def validate_core(documents, kubernetes_validate):
    """Findings of kubernetes-validate for every resource that is not a custom one."""
    findings, checked = [], 0
    for name, resources in documents.items():
        for resource in resources:
            if resource.get("kind") in CUSTOM_KINDS:
                continue
            where = f"{name}: {resource.get('kind')}/{resource.get('metadata', {}).get('name')}"
            try:
                kubernetes_validate.validate(resource, KUBERNETES_VERSION, strict=True)
                checked += 1
            except kubernetes_validate.SchemaNotFoundError:
                findings.append(f"{where}: Kubernetes {KUBERNETES_VERSION} has no kind {resource.get('kind')} in {resource.get('apiVersion')}")
            except kubernetes_validate.ValidationError as error:
                path = ".".join(str(p) for p in error.path)
                findings.append(f"{where}: {path}: {error.message}")
    return findings, checked


def crd_schemas(yaml):
    """{(apiVersion, kind): (openAPIV3Schema, the operator's version)} of the CRDs in check-crds/,
    and findings where a file is not what SOURCE.txt pins."""
    pinned = {}
    for line in (CRDS / "SOURCE.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            digest, name = line.split()
            pinned[name] = digest
    schemas, findings = {}, []
    for path in sorted(CRDS.glob("*.yaml")):
        where = f"{path.relative_to(MANIFESTS)}"
        if path.name not in pinned:
            findings.append(f"{where}: not listed in check-crds/SOURCE.txt")
        elif hashlib.sha256(path.read_bytes()).hexdigest() != pinned[path.name]:
            findings.append(f"{where}: its SHA-256 is not the one check-crds/SOURCE.txt pins (the file was changed)")
        for crd in (d for d in yaml.safe_load_all(path.read_text()) if d):
            spec = crd["spec"]
            release = crd["metadata"].get("annotations", {}).get("operator.prometheus.io/version", "?")
            for version in spec["versions"]:
                if version.get("served"):
                    schemas[(f"{spec['group']}/{version['name']}", spec["names"]["kind"])] = (version["schema"]["openAPIV3Schema"], release)
    findings += [f"check-crds/SOURCE.txt lists {name}, which is not in check-crds/" for name in sorted(set(pinned) - {p.name for p in CRDS.glob("*.yaml")})]
    return schemas, findings


def strict(schema):
    """`schema` with unknown fields refused: every object schema that lists its properties gets
    additionalProperties: false, unless it keeps unknown fields (x-kubernetes-preserve-unknown-fields)
    or says what they may be. (The API server prunes or, with kubectl's default strict field
    validation, refuses fields a structural schema does not name.)"""
    schema = copy.deepcopy(schema)

    def tighten(node):
        if isinstance(node, dict):
            if ("properties" in node and "additionalProperties" not in node
                    and not node.get("x-kubernetes-preserve-unknown-fields")):
                node["additionalProperties"] = False
            for value in node.values():
                tighten(value)
        elif isinstance(node, list):
            for item in node:
                tighten(item)

    tighten(schema)
    return schema


def validate_custom(documents, yaml, jsonschema):
    """Findings of jsonschema for every custom resource against its CRD's schema (strict), the
    number valid, and the operator's versions of the CRDs used."""
    schemas, findings = crd_schemas(yaml)
    checked, releases = 0, set()
    for name, resources in documents.items():
        for resource in resources:
            if resource.get("kind") not in CUSTOM_KINDS:
                continue
            where = f"{name}: {resource.get('kind')}/{resource.get('metadata', {}).get('name')}"
            found = schemas.get((resource.get("apiVersion"), resource.get("kind")))
            if found is None:
                findings.append(f"{where}: no CRD in check-crds/ serves {resource.get('apiVersion')} {resource.get('kind')}")
                continue
            schema, release = found
            # OpenAPI v3.0's schema objects are JSON Schema draft 4's keywords (exclusiveMinimum a boolean);
            # the x-kubernetes-* extensions are no keywords of it and are left alone.
            errors = sorted(jsonschema.Draft4Validator(strict(schema)).iter_errors(resource), key=lambda e: list(e.path))
            findings += [f"{where}: {'.'.join(str(p) for p in error.path) or '(top)'}: {error.message[:300]}" for error in errors]
            checked += 0 if errors else 1
            releases.add(release)
    return findings, checked, releases


def check_prometheus_rule(resources, yaml):
    """Findings for the PrometheusRule: generated from alerts.yml, and its rules pass promtool."""
    findings = []
    generated = subprocess.run([sys.executable, str(ROOT / "scripts" / "make-prometheusrule.py"), "--check"], capture_output=True, text=True)
    if generated.returncode != 0:
        findings.append(generated.stderr.strip() or "scripts/make-prometheusrule.py --check failed")
    rules = [r for r in resources if r.get("kind") == "PrometheusRule"]
    if len(rules) != 1:
        return findings + [f"expected one PrometheusRule, found {len(rules)}"]
    with tempfile.NamedTemporaryFile("w", suffix=".yml") as extracted:
        yaml.safe_dump({"groups": rules[0]["spec"]["groups"]}, extracted, sort_keys=False)
        extracted.flush()
        try:
            result = subprocess.run(["promtool", "check", "rules", extracted.name], capture_output=True, text=True)
        except FileNotFoundError:
            return findings + ["promtool not found (Debian prometheus; scripts/lib.sh WG_TEST_PACKAGES)"]
        if result.returncode != 0:
            findings.append(f"promtool check rules on the PrometheusRule's rules: {(result.stdout + result.stderr).strip()}")
        else:
            print(f"    promtool check rules (the PrometheusRule's): {result.stdout.strip().splitlines()[-1].strip()}")
    return findings


def by_kind(resources, kind):
    return [r for r in resources if r.get("kind") == kind]


def check_references(resources, yaml):
    """Findings where the manifests do not fit together (see the module's docstring)."""
    findings = []
    statefulsets, services = by_kind(resources, "StatefulSet"), by_kind(resources, "Service")
    if len(statefulsets) != 1:
        return [f"expected one StatefulSet, found {len(statefulsets)}"]
    statefulset = statefulsets[0]
    spec, pod = statefulset["spec"], statefulset["spec"]["template"]["spec"]
    labels = statefulset["spec"]["template"]["metadata"].get("labels", {})
    container = pod["containers"][0]
    port_names = {p.get("name") for p in container.get("ports", [])}
    if spec.get("podManagementPolicy") != "Parallel":
        findings.append("StatefulSet: podManagementPolicy is not Parallel")

    for service in services:
        name = service["metadata"]["name"]
        selector = service["spec"].get("selector", {})
        if not selector or any(labels.get(k) != v for k, v in selector.items()):
            findings.append(f"Service {name}: its selector {selector} does not select the StatefulSet's pods {labels}")
        for port in service["spec"].get("ports", []):
            if isinstance(port.get("targetPort"), str) and port["targetPort"] not in port_names:
                findings.append(f"Service {name}: targetPort {port['targetPort']} is no container port ({sorted(port_names)})")
    headless = [s for s in services if s["metadata"]["name"] == spec.get("serviceName")]
    if not headless or headless[0]["spec"].get("clusterIP") != "None":
        findings.append(f"StatefulSet: serviceName {spec.get('serviceName')} is no headless Service")

    for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz"), ("startupProbe", "/healthz")):
        get = container.get(probe, {}).get("httpGet", {})
        if get.get("path") != path or get.get("port") not in port_names | {p.get("containerPort") for p in container.get("ports", [])}:
            findings.append(f"StatefulSet: {probe} does not ask {path} on a container port ({get})")

    if pod.get("automountServiceAccountToken") is not False:
        findings.append("StatefulSet: automountServiceAccountToken is not false (the gateway never calls the Kubernetes API)")
    spread = [c for c in pod.get("topologySpreadConstraints", []) if c.get("topologyKey") == "kubernetes.io/hostname"]
    spread_labels = spread[0].get("labelSelector", {}).get("matchLabels", {}) if spread else {}
    if not spread_labels or any(labels.get(k) != v for k, v in spread_labels.items()):
        findings.append("StatefulSet: no topologySpreadConstraints on kubernetes.io/hostname whose labelSelector selects its pods")

    environment = {e["name"]: e for e in container.get("env", [])}
    instance = environment.get("WG_CLUSTER_INSTANCE", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
    if instance != "metadata.name":
        findings.append("StatefulSet: WG_CLUSTER_INSTANCE does not come from the pod's name (fieldRef metadata.name)")

    # Every ConfigMap, Secret and key the pod uses exists.
    config_maps = {c["metadata"]["name"]: c for c in by_kind(resources, "ConfigMap")}
    secrets = {s["metadata"]["name"]: s for s in by_kind(resources, "Secret")}

    def secret_keys(name):
        secret = secrets.get(name, {})
        return set(secret.get("stringData", {})) | set(secret.get("data", {}))

    for variable in environment.values():
        reference = variable.get("valueFrom", {}).get("secretKeyRef")
        if reference and reference["key"] not in secret_keys(reference["name"]):
            findings.append(f"StatefulSet: {variable['name']} names key {reference['key']} of Secret {reference['name']}, which has no such key")
    for volume in pod.get("volumes", []):
        if "configMap" in volume and volume["configMap"]["name"] not in config_maps:
            findings.append(f"StatefulSet: volume {volume['name']} names ConfigMap {volume['configMap']['name']}, which is not here")
        if "secret" in volume:
            name = volume["secret"]["secretName"]
            for item in volume["secret"].get("items", []):
                if item["key"] not in secret_keys(name):
                    findings.append(f"StatefulSet: volume {volume['name']} names key {item['key']} of Secret {name}, which has no such key")
    claims = {c["metadata"]["name"] for c in spec.get("volumeClaimTemplates", [])}
    mounted = {m["name"]: m["mountPath"] for m in container.get("volumeMounts", [])}
    if not any(mounted.get(claim) == "/var/lib/wearable-gateway" for claim in claims):
        findings.append("StatefulSet: no volume claim template is mounted at /var/lib/wearable-gateway (the image's journal and state paths)")

    # The grace outlasts the shutdown: the hand-over (bounded by drainTimeout) plus 2 x drainTimeout.
    gateway = yaml.safe_load(next(iter(config_maps.values()))["data"]["gateway.yml"]) if config_maps else {}
    pipeline = gateway.get("pipeline", {})
    bound = 3 * pipeline.get("drainTimeout", 15)
    grace = pod.get("terminationGracePeriodSeconds", 30)
    if grace <= bound:
        findings.append(f"StatefulSet: terminationGracePeriodSeconds {grace} is not above the shutdown bound of gateway.yml, {bound} s")
    cluster = gateway.get("cluster", {})
    if cluster.get("mode") != "partitioned":
        findings.append("ConfigMap gateway.yml: the StatefulSet runs clustered instances: cluster.mode must be partitioned")
    if gateway.get("store", {}).get("backend") != "postgres":
        findings.append("ConfigMap gateway.yml: partitioned mode needs store.backend postgres")

    store = environment.get("WG_STORE_URL", {}).get("valueFrom", {}).get("secretKeyRef", {})
    store_url = secrets.get(store.get("name"), {}).get("stringData", {}).get(store.get("key"), "")
    findings += check_network_policy(resources, labels, container, gateway.get("mqtt", {}).get("broker", ""), store_url)

    for monitor in by_kind(resources, "ServiceMonitor"):
        wanted = monitor["spec"].get("selector", {}).get("matchLabels", {})
        selected = [s for s in services if all(s["metadata"].get("labels", {}).get(k) == v for k, v in wanted.items())]
        if len(selected) != 1:
            findings.append(f"ServiceMonitor: selects {len(selected)} Services, not one")
            continue
        service = selected[0]
        ports = {p.get("name") for p in service["spec"].get("ports", [])}
        for endpoint in monitor["spec"].get("endpoints", []):
            if endpoint.get("port") not in ports:
                findings.append(f"ServiceMonitor: endpoint port {endpoint.get('port')} is no port of Service {service['metadata']['name']}")
        job = service["metadata"].get("labels", {}).get(monitor["spec"].get("jobLabel", ""))
        if job != JOB:
            findings.append(f"ServiceMonitor: the job would be {job or service['metadata']['name']!r}, not {JOB!r} (jobLabel)")
    return findings


def check_network_policy(resources, labels, container, broker_url, store_url):
    """Findings where the NetworkPolicy does not isolate the pods as docs/kubernetes.md says."""
    policies = by_kind(resources, "NetworkPolicy")
    if len(policies) != 1:
        return [f"expected one NetworkPolicy, found {len(policies)}"]
    findings, spec = [], policies[0]["spec"]
    wanted = spec.get("podSelector", {}).get("matchLabels", {})
    if not wanted or any(labels.get(k) != v for k, v in wanted.items()):
        findings.append(f"NetworkPolicy: its podSelector {wanted} does not select the StatefulSet's pods {labels}")
    if sorted(spec.get("policyTypes", [])) != ["Egress", "Ingress"]:
        findings.append(f"NetworkPolicy: policyTypes {spec.get('policyTypes')}, not Ingress and Egress")
    container_ports = {p.get("name"): p.get("containerPort") for p in container.get("ports", [])}
    for direction, peers in (("ingress", "from"), ("egress", "to")):
        for index, rule in enumerate(spec.get(direction, [])):
            if not rule.get("ports"):
                findings.append(f"NetworkPolicy: {direction} rule {index} allows every port")
            if direction == "ingress" and not rule.get(peers):
                findings.append(f"NetworkPolicy: ingress rule {index} admits every source (no from:)")
    for name in ("metrics", "http"):
        if not any(port.get("port") in (name, container_ports.get(name)) for rule in spec.get("ingress", []) for port in rule.get("ports", [])):
            findings.append(f"NetworkPolicy: no ingress rule admits the {name} port ({container_ports.get(name)})")
    allowed = {(port.get("protocol", "TCP"), port.get("port")) for rule in spec.get("egress", []) for port in rule.get("ports", [])}
    broker = urllib.parse.urlsplit(broker_url)
    broker_port = broker.port or {"mqtts": 8883, "mqtt": 1883}.get(broker.scheme)
    store_port = urllib.parse.urlsplit(store_url).port or 5432
    for protocol, port, what in (("UDP", 53, "DNS"), ("TCP", 53, "DNS over TCP"),
                                 ("TCP", broker_port, f"the broker ({broker_url})"), ("TCP", store_port, "PostgreSQL (the Secret's store-url)")):
        if (protocol, port) not in allowed:
            findings.append(f"NetworkPolicy: no egress rule lets out {protocol} {port}, {what}")
    return findings


def checkov_report():
    """checkov's JSON report of the manifests and the component (not check-crds/), or a finding.
    Offline: no download of guidelines or policies, no update check."""
    try:
        python = tool_environment("checkov-venv", CHECKOV_REQUIREMENTS)
    except RuntimeError as error:
        return None, f"checkov could not be installed: {error}"
    command = [str(python), "-m", "checkov.main", "--framework", "kubernetes", "--directory", str(MANIFESTS.relative_to(ROOT)),
               "--skip-path", str(CRDS.relative_to(ROOT)), "--skip-download", "--output", "json"]
    environment = dict(os.environ, CKV_SKIP_PACKAGE_UPDATE_CHECK="true", BC_SKIP_MAPPING="TRUE")
    try:
        result = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=CHECKOV_TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, f"checkov did not finish within {CHECKOV_TIMEOUT} s"
    try:
        report = json.loads(result.stdout)  # exit status 1 when a check failed: the report says which
    except json.JSONDecodeError:
        return None, f"checkov exited {result.returncode} without a JSON report: {(result.stderr or result.stdout).strip()[-2000:]}"
    reports = [r for r in (report if isinstance(report, list) else [report]) if r.get("check_type") == "kubernetes"]
    if len(reports) != 1:
        return None, f"checkov's report has no Kubernetes results (does it find the manifests?): {result.stdout.strip()[:500]}"
    return reports[0], None


def documented_skips():
    """The check ids in the first column of the table rows of docs/kubernetes.md (`CKV_K8S_n`)."""
    return {m.group(1) for m in re.finditer(r"^\| *`(CKV2?_K8S_\d+)` *\|", CHECKOV_DOC.read_text(), re.MULTILINE)}


def check_checkov():
    """Findings of checkov that CHECKOV_SKIPS does not allow, and where the list, the report and
    the doc's table disagree."""
    report, problem = checkov_report()
    if problem:
        return [problem]
    results = report["results"]
    findings = [f"checkov could not parse {path}" for path in results.get("parsing_errors", [])]
    failed = results.get("failed_checks", [])
    for check in failed:
        if check["check_id"] not in CHECKOV_SKIPS:
            lines = "-".join(str(n) for n in check.get("file_line_range", []))
            findings.append(f"checkov {check['check_id']} ({check['check_name']}) fails for {check['resource']} "
                            f"({check['file_path'].lstrip('/')}:{lines}): fix the manifest, or add the id and why to CHECKOV_SKIPS and {CHECKOV_DOC.relative_to(ROOT)}")
    for check in results.get("skipped_checks", []):
        findings.append(f"checkov {check['check_id']} is skipped for {check['resource']} by the manifest ({check['file_path'].lstrip('/')}): "
                        "the skips belong in CHECKOV_SKIPS of scripts/check-kubernetes.py")
    failing = {check["check_id"] for check in failed}
    findings += [f"checkov {check} ({reason}) no longer fails: remove it from CHECKOV_SKIPS and {CHECKOV_DOC.relative_to(ROOT)}"
                 for check, reason in CHECKOV_SKIPS.items() if check not in failing]
    documented = documented_skips()
    findings += [f"{CHECKOV_DOC.relative_to(ROOT)}: the table of checkov's skipped checks lacks {check}" for check in sorted(set(CHECKOV_SKIPS) - documented)]
    findings += [f"{CHECKOV_DOC.relative_to(ROOT)}: the table of checkov's skipped checks lists {check}, which CHECKOV_SKIPS does not" for check in sorted(documented - set(CHECKOV_SKIPS))]
    allowed = [check for check in failed if check["check_id"] in CHECKOV_SKIPS]
    summary = report.get("summary", {})
    print(f"    checkov {summary.get('checkov_version', '?')} (kubernetes, {summary.get('resource_count', '?')} resources): "
          f"{len(results.get('passed_checks', []))} passed, {len(failed) - len(allowed)} failed, "
          f"{len(allowed)} skipped with a reason ({len(CHECKOV_SKIPS)} check ids of CHECKOV_SKIPS)")
    return findings


def check_gateway_configuration(resources, binaries):
    """Findings of `wearable-gateway check-config` on the ConfigMap's gateway.yml."""
    gateway = binaries / "wearable-gateway"
    if not gateway.is_file():
        return [f"no {gateway}: build first (swift build) or pass --bin"]
    config_maps = by_kind(resources, "ConfigMap")
    if not config_maps:
        return ["no ConfigMap"]
    text = config_maps[0]["data"]["gateway.yml"]
    with tempfile.TemporaryDirectory() as work:
        work = pathlib.Path(work)
        subprocess.run(["bash", str(ROOT / "scripts" / "make-dev-pki.sh"), str(work / "pki")], check=True, stdout=subprocess.DEVNULL)
        (work / "password").write_text("example\n")
        for mounted, local in (("/run/wearable-gateway/tls/ca.crt", work / "pki" / "ca.crt"),
                               ("/run/wearable-gateway/tls/tls.crt", work / "pki" / "gateway.crt"),
                               ("/run/wearable-gateway/tls/tls.key", work / "pki" / "gateway.key"),
                               ("/run/wearable-gateway/store/password", work / "password"),
                               ("/etc/wearable-gateway/devices.yml", ROOT / "config" / "devices.yml")):
            text = text.replace(mounted, str(local))
        (work / "gateway.yml").write_text(text)
        environment = {k: v for k, v in os.environ.items() if not k.startswith("WG_")}
        environment.update(WG_CLUSTER_INSTANCE="wearable-gateway-0", WG_STORE_URL="postgres://gateway@postgres.example:5432/wearables?sslmode=require")
        result = subprocess.run([str(gateway), "check-config", "--config", str(work / "gateway.yml")], cwd=ROOT, env=environment,
                                capture_output=True, text=True)
    if result.returncode != 0:
        return [f"ConfigMap gateway.yml: wearable-gateway check-config exited {result.returncode}: {(result.stdout + result.stderr).strip()}"]
    print("    wearable-gateway check-config: the ConfigMap's gateway.yml is valid")
    return []


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=str(ROOT / ".build" / "debug"), help="directory of the built executables")
    options = parser.parse_args()
    in_virtual_environment(__file__, REQUIREMENTS, ("kubernetes_validate", "yaml", "jsonschema"))
    import jsonschema
    import kubernetes_validate
    import yaml

    documents, findings, components = load_manifests(yaml)
    resources = [r for rs in documents.values() for r in rs]
    core, checked = validate_core(documents, kubernetes_validate)
    print(f"    kubernetes-validate {kubernetes_validate.version.__version__} (strict), Kubernetes {KUBERNETES_VERSION}: {checked} core resources valid")
    findings += core
    custom, checked, releases = validate_custom(documents, yaml, jsonschema)
    print(f"    jsonschema {importlib.metadata.version('jsonschema')} (strict), the Prometheus Operator's CRDs "
          f"{', '.join(sorted(releases)) or '(none used)'} (check-crds/): {checked} custom resources valid")
    findings += custom
    findings += check_prometheus_rule(resources, yaml)
    findings += check_references(resources, yaml)
    findings += render_with_kustomize(components, documents)
    findings += check_gateway_configuration(resources, pathlib.Path(options.bin))
    findings += check_checkov()
    for finding in findings:
        print(f"{MANIFESTS.relative_to(ROOT)}: {finding}")
    print(f"kubernetes check: {len(findings)} findings in {len(documents)} manifests ({len(resources)} resources)")
    sys.exit(1 if findings else 0)


if __name__ == "__main__":
    main()
