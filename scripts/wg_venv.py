"""The virtual environment of the Python checks: $WG_REPO_ROOT/.build/pytest-venv, which scripts/test.sh
makes and fills. scripts/check-kubernetes.py and scripts/check-compose.py call in_virtual_environment()
first, so each also runs alone, as `python3 scripts/check-....py`. A tool whose pinned dependencies
clash with that environment's gets one of its own, $WG_REPO_ROOT/.build/NAME (tool_environment():
checkov, whose packaging<24 pytest 9 refuses)."""
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
    if pathlib.Path(sys.prefix).resolve() == VENV.resolve():
        return
    if sys.prefix != sys.base_prefix and all(importlib.util.find_spec(module) for module in modules):
        return
    python = tool_environment(VENV.name, requirements)
    os.execv(str(python), [str(python), str(script), *sys.argv[1:]])


def tool_environment(name, requirements, timeout=600):
    """The Python of $WG_REPO_ROOT/.build/`name`, a virtual environment, made when
    missing, with the pinned `requirements` file installed (pip returns in about 2 s when they
    are). Raises RuntimeError when the environment cannot be made or filled within `timeout` s."""
    venv = ROOT / ".build" / name
    python = venv / "bin" / "python"
    try:
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=timeout)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "-r", str(requirements)],
                       check=True, timeout=timeout, stdout=subprocess.DEVNULL)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
        raise RuntimeError(f"{venv.relative_to(ROOT)} with {requirements.relative_to(ROOT)}: {error}") from error
    return python
