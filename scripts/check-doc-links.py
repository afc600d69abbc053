#!/usr/bin/env python3
"""Checks the shape of the docs, without the code (scripts/check-docs.py checks them against it):

- every relative Markdown link of README.md, docs/*.md and Benchmarks/results/*.md points at a
  file or folder that exists, and its #anchor, if any, at a heading of the Markdown file it
  names (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens, -1, -2, ... for
  repeats; headings inside fenced code blocks do not count);
- every Markdown file in docs/ is linked from docs/README.md, the index;
- every Markdown file in docs/ says what it is for: its title is followed by a paragraph, not a
  heading, list, table or code block;
- docs/performance.md stays a reference of current figures: at most MAX_PERFORMANCE_LINES lines
  (dated measurement sessions go to Benchmarks/results/).

Usage: scripts/check-doc-links.py [--root DIR]   (DIR: the repository, default this script's)
Exit status 1 and one line per finding when something is wrong.
"""
import argparse
import pathlib
import re
import sys

MAX_PERFORMANCE_LINES = 600
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def prose_lines(text, keep_code=False):
    """(number, line) of the lines outside fenced code blocks, with inline code spans blanked
    unless `keep_code`."""
    fence = None
    for number, line in enumerate(text.splitlines(), start=1):
        marker = re.match(r"\s*(```+|~~~+)", line)
        if marker:
            if fence is None:
                fence = marker.group(1)[0] * 3
            elif marker.group(1).startswith(fence):
                fence = None
            continue
        if fence is None:
            yield number, line if keep_code else re.sub(r"`+[^`]*`+", "", line)


def anchors(text):
    """The anchors GitHub gives the headings of a Markdown text."""
    seen, result = {}, set()
    for _, line in prose_lines(text, keep_code=True):
        heading = re.match(r"\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not heading:
            continue
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.group(1))
        slug = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        result.add(slug if count == 0 else f"{slug}-{count}")
    result |= set(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", text))
    return result


def check_links(root, documents):
    findings = []
    cache = {}
    for document in documents:
        text = document.read_text()
        for number, line in prose_lines(text):
            for target in LINK.findall(line):
                if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
                    continue
                path, _, anchor = target.partition("#")
                where = f"{document.relative_to(root)}:{number}"
                resolved = (document.parent / path).resolve() if path else document
                if not resolved.exists():
                    findings.append(f"{where}: link to `{target}`: {path} does not exist")
                    continue
                if anchor and resolved.suffix == ".md":
                    if resolved not in cache:
                        cache[resolved] = anchors(resolved.read_text())
                    if anchor not in cache[resolved]:
                        findings.append(f"{where}: link to `{target}`: no heading of {resolved.relative_to(root)} has the anchor #{anchor}")
    return findings


def check_index(root):
    index = root / "docs" / "README.md"
    if not index.exists():
        return ["docs/README.md: missing (the index of docs/)"]
    linked = {(index.parent / target.partition("#")[0]).resolve() for _, line in prose_lines(index.read_text()) for target in LINK.findall(line)}
    return [f"docs/README.md: does not link {path.relative_to(root)}"
            for path in sorted((root / "docs").glob("*.md")) if path.name != "README.md" and path.resolve() not in linked]


def check_purposes(root):
    findings = []
    for path in sorted((root / "docs").glob("*.md")):
        lines = [line for line in path.read_text().splitlines()]
        title = next((i for i, line in enumerate(lines) if line.startswith("# ")), None)
        if title is None:
            findings.append(f"{path.relative_to(root)}: no title (a first line '# ...')")
            continue
        following = next((line for line in lines[title + 1:] if line.strip()), "")
        if re.match(r"\s*(#|[-*+] |\d+\. |\||```|~~~|>|!\[)", following) or not following:
            findings.append(f"{path.relative_to(root)}:{title + 1}: the title is not followed by a sentence saying what the document is for")
    return findings


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(pathlib.Path(__file__).resolve().parent.parent), help="the repository")
    root = pathlib.Path(parser.parse_args().root).resolve()
    documents = [root / "README.md", *sorted((root / "docs").glob("*.md")), *sorted((root / "Benchmarks" / "results").glob("*.md"))]
    findings = check_links(root, [d for d in documents if d.exists()])
    findings += check_index(root)
    findings += check_purposes(root)
    performance = root / "docs" / "performance.md"
    if performance.exists():
        count = len(performance.read_text().splitlines())
        if count > MAX_PERFORMANCE_LINES:
            findings.append(f"docs/performance.md: {count} lines, more than {MAX_PERFORMANCE_LINES} "
                            "(keep the current figures there; dated sessions go to Benchmarks/results/)")
    for finding in findings:
        print(finding)
    print(f"doc links check: {len(findings)} findings in {len(documents)} Markdown files")
    sys.exit(1 if findings else 0)


if __name__ == "__main__":
    main()
