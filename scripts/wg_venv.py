"""The virtual environment of the Python checks: $WG_REPO_ROOT/.build/pytest-venv, which scripts/test.sh
makes and fills. scripts/check-kubernetes.py and scripts/check-compose.py call in_virtual_environment()
first, so each also runs alone, as `python3 scripts/check-....py`."""
import importlib.util
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(os.environ.get("WG_REPO_ROOT") or pathlib.Path(__file__).resolve().parent.parent)
VENV = ROOT / ".build" / "pytest-venv"


def in_virtual_environment(script, requirements, modules):
    """Returns when this Python is the virtual environment's, or another virtual environment's that
    can import every one of `modules`; otherwise makes the environment when missing, installs the
    pinned `requirements` file into it and runs `script` again with its Python (same arguments)."""
    python = VENV / "bin" / "python"
    if pathlib.Path(sys.prefix).resolve() == VENV.resolve():
        return
    if sys.prefix != sys.base_prefix and all(importlib.util.find_spec(module) for module in modules):
        return
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "-r", str(requirements)], check=True)
    os.execv(str(python), [str(python), str(script), *sys.argv[1:]])
