#!/usr/bin/env python3
"""No cycle among a target's folders: the gateway's layers stay layers.

A Swift target is one module, so a folder may name any type of another; this check keeps the
folders of Sources/TelemetryGateway a directed acyclic graph. A folder depends on another when
one of its files names (outside comments) a type declared in that other folder; the files at the
target's root (assembly) are left out as the top of the graph. Prints each folder's dependencies
and, for a cycle, the files and type names that make each of its edges; exits 1 on a cycle.

Usage (from the repository root): python3 scripts/check-folder-cycles.py [Sources/TelemetryGateway]
"""
import collections
import os
import re
import sys

DECLARATION = re.compile(
    r"^(?:(?:public|internal|private|fileprivate|final|indirect|@\w+)\s+)*(?:struct|class|enum|protocol|actor|typealias)\s+(\w+)", re.M)


def folders(root):
    """folder -> {file name: source without comments}, and type name -> declaring folder."""
    sources = collections.defaultdict(dict)
    declared = {}
    for directory, _, names in os.walk(root):
        for name in sorted(names):
            if not name.endswith(".swift"):
                continue
            relative = os.path.relpath(os.path.join(directory, name), root)
            if os.sep not in relative:
                continue  # the target's root: assembly, above every folder
            folder = relative.split(os.sep)[0]
            text = open(os.path.join(directory, name), encoding="utf-8").read()
            sources[folder][name] = re.sub(r"/\*.*?\*/", "", re.sub(r"//.*", "", text), flags=re.S)
            for match in DECLARATION.finditer(text):
                declared[match.group(1)] = folder
    return sources, declared


def edges(sources, declared):
    """folder -> other folder -> the "file:Type" names that make the edge."""
    graph = collections.defaultdict(lambda: collections.defaultdict(set))
    patterns = {name: re.compile(r"\b" + name + r"\b") for name in declared}
    for folder, files in sources.items():
        for file, text in files.items():
            for name, owner in declared.items():
                if owner != folder and patterns[name].search(text):
                    graph[folder][owner].add(f"{file}:{name}")
    return graph


def cycles(graph, nodes):
    """The strongly connected components with more than one folder (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph.get(node, {}):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(nodes):
        if node not in index:
            visit(node)
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "Sources/TelemetryGateway"
    sources, declared = folders(root)
    graph = edges(sources, declared)
    for folder in sorted(sources):
        print(f"{folder} -> {', '.join(sorted(graph.get(folder, {}))) or '(nothing)'}")
    found = cycles(graph, sources.keys())
    for component in found:
        print(f"cycle among {', '.join(component)}:")
        for folder in component:
            for other in sorted(graph[folder]):
                if other in component:
                    print(f"  {folder} -> {other}: {', '.join(sorted(graph[folder][other]))}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
