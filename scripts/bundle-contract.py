#!/usr/bin/env python3
"""Writes contract/bundle/schemas.json: every schema of contract/schemas/ in one JSON Schema 2020-12 compound document,
each in `$defs` under its own `$id`, for a schema registry or a validator that loads one file (contract/README.md).

    python3 scripts/bundle-contract.py           # (re)writes the bundle
    python3 scripts/bundle-contract.py --check   # exits 1 when the committed bundle is out of date

Needs scripts/contract-requirements.txt (it reads the schemas with contract/wg_contract.py). scripts/check-contract.py
runs the same check and validates the bundle.
"""

import argparse
import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY / "contract"))
from wg_contract import BUNDLE_FILE, CONTRACT_DIR, bundle_text  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="do not write; exit 1 when the committed bundle differs")
    arguments = parser.parse_args()
    path = CONTRACT_DIR / BUNDLE_FILE
    text = bundle_text()
    shown = path.relative_to(REPOSITORY)
    if arguments.check:
        if not path.is_file() or path.read_text() != text:
            print(f"{shown}: out of date with contract/schemas/; run python3 scripts/bundle-contract.py", file=sys.stderr)
            return 1
        print(f"{shown}: up to date")
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    print(f"wrote {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
