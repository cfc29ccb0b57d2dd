"""``hearts serve`` and ``hearts_env.env()`` without their extra say, in ``core.extras``'s one wording,
which package is missing and the pip command that installs it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hearts_env.core.extras import missing_extra_message


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("missing", ["uvicorn", "starlette"])
def test_serve_without_the_web_extra_names_it(missing: str) -> None:
    code = (
        "import sys, argparse\n"
        f"sys.modules[{missing!r}] = None\n"
        "from hearts_env.web.cli import serve_main\n"
        "args = argparse.Namespace(records=None, max_games=200, host='127.0.0.1', port=8000, open=False)\n"
        "sys.exit(serve_main(args))\n"
    )
    done = _python(code)
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.strip() == missing_extra_message(missing, "web", "hearts serve")
    assert "pip install 'hearts-env[web]'" in done.stderr and done.stdout == ""


def test_env_without_the_env_extra_uses_the_one_wording() -> None:
    code = (
        "import sys\n"
        "sys.modules['gymnasium'] = None\n"
        "import hearts_env\n"
        "from hearts_env.core.extras import MissingExtraError\n"
        "try:\n"
        "    hearts_env.env()\n"
        "except MissingExtraError as err:\n"
        "    print(err)\n"
    )
    done = _python(code)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == missing_extra_message("gymnasium", "env", "A Hearts environment")
