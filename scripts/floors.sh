#!/usr/bin/env bash
# Proves the lower bounds of pyproject.toml's [project] dependencies: resolves an environment to the
# lowest direct versions (`uv pip install --resolution lowest-direct`), checks that every dependency
# landed on the floor pyproject.toml states, and runs the engine, guardrail, LangSmith, model and
# judge-file tests in it. The middleware, classic, typesafe and code extras are installed at their
# own floors; the ray and report extras are not (the one test that imports every module, the ray
# spoke's too, is deselected), nor are the provider packages (langchain-openai, -anthropic,
# -google-genai: the tests that need them skip). The test tools keep the versions pinned below.
# Writes scripts/floors-result.txt (date, versions resolved, pass/fail counts).
# Takes about 5 minutes on a 2-core machine (install under a minute, tests the rest).
#
# Usage: bash scripts/floors.sh            (FLOORS_TOOLS and FLOORS_VENV choose the two scratch venvs)
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS="${FLOORS_TOOLS:-/tmp/floors-tools}"
VENV="${FLOORS_VENV:-/tmp/floors-venv}"
RESULT=scripts/floors-result.txt
TESTS=(tests/test_criteria.py tests/test_outcomes.py tests/test_feedback.py tests/test_input.py
    tests/test_input_field_mistakes.py tests/test_judge.py tests/test_judge_large.py tests/test_statements.py
    tests/test_judge_untraced.py tests/guardrails tests/langsmith tests/models tests/spec)
SKIP=tests/models/test_secret_settings.py::test_every_class_with_a_declared_secret_setting_has_its_secret_redacted_in_its_repr

[ -x "$TOOLS/bin/uv" ] || { python3 -m venv "$TOOLS" && "$TOOLS/bin/pip" install -q uv; }
UV="$TOOLS/bin/uv"
"$UV" venv -q --clear --python "$(command -v python3)" "$VENV"
"$UV" pip install -q --python "$VENV/bin/python" --resolution lowest-direct \
    -e ".[middleware,classic,typesafe,code]" \
    "typesafe-sdk[zstd]" pytest==9.2.0 pytest-asyncio==1.5.0 pytest-xdist==3.8.0 hypothesis==6.170.17 \
    httpx2==2.16.2 hatchling==1.33.0

# Every [project] dependency must sit on its stated floor, or the run proves nothing about that floor.
versions=$("$VENV/bin/python" - <<'PY'
import importlib.metadata as metadata
import sys
import tomllib

from packaging.requirements import Requirement
from packaging.version import Version

with open("pyproject.toml", "rb") as file:
    project = tomllib.load(file)["project"]
names = [Requirement(text) for text in project["dependencies"]]
names += [Requirement(text) for extra in ("middleware", "classic", "typesafe", "code")
          for text in project["optional-dependencies"][extra]]
off = []
for requirement in names:
    floor = next(s.version for s in requirement.specifier if s.operator == ">=")
    resolved = metadata.version(requirement.name)
    print(f"{requirement.name}=={resolved}  (floor {floor})")
    if Version(resolved) != Version(floor):
        off.append(f"{requirement.name}: resolved {resolved}, floor {floor}")
if off:
    sys.exit("not on the floor: " + "; ".join(off))
PY
)
echo "$versions"

set +e
PYTHONPATH="$PWD" "$VENV/bin/python" -m pytest "${TESTS[@]}" --deselect "$SKIP" -q -p no:cacheprovider -n 2 > /tmp/floors-pytest.log 2>&1
status=$?
set -e
counts=$(tail -n 1 /tmp/floors-pytest.log)
{
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "command: bash scripts/floors.sh (uv pip install --resolution lowest-direct)"
    echo "python: $("$VENV/bin/python" --version)"
    echo "tests: ${TESTS[*]} (deselected: $SKIP)"
    echo "result: $counts"
    echo "resolved:"
    echo "$versions" | sed 's/^/  /'
    grep -E '^(FAILED|ERROR) tests/' /tmp/floors-pytest.log | sed 's/^/  /' || true
} > "$RESULT"
cat "$RESULT"
exit "$status"
