"""Ray is an optional extra: without it the package, ``--help`` and the local engine work, and
``--engine ray`` says how to install it (exit 2) instead of failing on an import."""

from __future__ import annotations

import subprocess
import sys

from tests.cli.helpers import ROOT, WEATHER_DATA, WEATHER_JUDGE, cli_env

NO_RAY = (
    "import sys\n"
    "sys.modules.update(dict.fromkeys(['ray', 'ray.data', 'pyarrow', 'pyarrow.parquet']))  # not installed\n"
)


def _run(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", NO_RAY + code, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=cli_env(),
        timeout=120,
        check=False,
    )


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return _run("from langchain_jev.cli import main\nsys.exit(main(sys.argv[1:]))\n", *args)


def test_help_and_the_judge_help_work_without_ray() -> None:
    assert _cli("--help").returncode == 0
    judge = _cli("judge", "--help")
    assert judge.returncode == 0, judge.stderr
    text = " ".join(judge.stdout.split())  # argparse wraps the help at the terminal's width
    assert "--engine {local,ray}" in text and "a Ray cluster reads, judges and writes the rows" in text


def test_engine_ray_without_ray_is_bad_input_naming_the_extra() -> None:
    result = _cli("judge", str(WEATHER_DATA), "--judge", str(WEATHER_JUDGE), "--engine", "ray", "--quiet")
    assert result.returncode == 2, result.stderr
    assert "--engine ray needs Ray: install the ray extra" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_ray_face_and_the_ray_run_import_without_ray() -> None:
    result = _run(
        "import langchain_jev.ray, langchain_jev.ray._run as run\n"
        "print(run.ray_missing())\n"
        "try:\n"
        "    langchain_jev.ray.judge_dataset\n"
        "except ImportError as error:\n"
        "    print('judge_dataset:', error)\n"
    )
    assert result.returncode == 0, result.stderr
    first, second = result.stdout.splitlines()
    assert first.startswith("install the ray extra: pip install")
    assert second.startswith("judge_dataset: ") and "install the ray extra" in second
