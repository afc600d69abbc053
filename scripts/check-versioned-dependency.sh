#!/usr/bin/env bash
# Checks that SwiftPM accepts this package as a dependency fetched by version, as users declare
# it (`.package(url: …, from: "1.0.0")`, Examples/Package.swift). SwiftPM refuses a versioned
# dependency whose products carry unsafe build flags (`unsafeFlags`) unless that dependency's
# manifest declares swift-tools-version 6.2 or later (the rule SwiftPM 6.2 relaxed; this
# manifest's -O/-O3 rely on it, docs/architecture.md), and it says so when it loads the package
# graph, before building anything. This script:
#   1. copies the working tree (tracked and untracked files git does not ignore) into a
#      temporary git repository and tags it 1.0.0;
#   2. writes a throwaway package that depends on it by `file://` URL, `from: "1.0.0"`, using
#      every library product;
#   3. resolves that package and loads its graph (`swift package show-dependencies`), which
#      fails with "contains unsafe build flags" if SwiftPM refuses the flags (as it does with
#      the manifest's tools version lowered to 6.1), or with any other error a user would meet.
# No build: under a minute once SwiftPM's repository cache holds the dependencies.
# Usage: scripts/check-versioned-dependency.sh   (scripts/test.sh runs it; WG_CHECK_DIR=DIR keeps
# the temporary packages in DIR for a look afterwards)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$WG_REPO_ROOT"

work=${WG_CHECK_DIR:-$(mktemp -d)}
[ -n "${WG_CHECK_DIR:-}" ] || trap 'rm -rf "$work"' EXIT

# 1. The package as a tagged release.
mkdir "$work/WearableGateway"
git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' file; do [ -e "$file" ] && printf '%s\0' "$file"; done |
	tar --null -T - -cf - | tar -xf - -C "$work/WearableGateway"
git -C "$work/WearableGateway" init -q
git -C "$work/WearableGateway" add -A
git -C "$work/WearableGateway" -c user.name=check -c user.email=check@localhost commit -q -m release
git -C "$work/WearableGateway" tag 1.0.0

# 2. A consumer of every library product, by URL and version.
products=$(swift package --package-path "$work/WearableGateway" dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
print(" ".join(p["name"] for p in package["products"] if "library" in p["type"]))')
mkdir -p "$work/Consumer/Sources/Consumer"
: >"$work/Consumer/Sources/Consumer/Consumer.swift"
{
	printf '// swift-tools-version:6.2\nimport PackageDescription\n\nlet package = Package(\n'
	printf '    name: "Consumer",\n'
	printf '    dependencies: [.package(url: "file://%s/WearableGateway", from: "1.0.0")],\n' "$work"
	printf '    targets: [.target(name: "Consumer", dependencies: [\n'
	for product in $products; do
		printf '        .product(name: "%s", package: "WearableGateway"),\n' "$product"
	done
	printf '    ])]\n)\n'
} >"$work/Consumer/Package.swift"

# 3. Resolve and load the graph.
log "versioned dependency: a package depending on this one by URL, from: 1.0.0 (products: $products)"
output=$(cd "$work/Consumer" && swift package resolve 2>&1 && swift package show-dependencies 2>&1) || {
	printf '%s\n' "$output" >&2
	die "SwiftPM does not accept the package as a versioned dependency (above)"
}
if grep -F "error:" <<<"$output"; then
	die "SwiftPM does not accept the package as a versioned dependency (above)"
fi
grep -E "wearablegateway<.*@1\.0\.0>" <<<"$output" ||
	die "the dependency graph lacks WearableGateway 1.0.0:"$'\n'"$output"
