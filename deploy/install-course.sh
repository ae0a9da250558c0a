#!/usr/bin/env bash
# Install the course into the current Python environment, the way the single-user image does:
# the course package from this checkout, its dependencies at the pinned versions the tests run
# with (student/constraints.txt), nbgitpuller for the instructor's git-pull links, and the student
# notebooks under $COURSE_HOME. Nothing else. Used by deploy/Dockerfile and by
# deploy/check-install.sh, which runs these same commands in a fresh venv and runs every student
# notebook under nbval.
set -euo pipefail
src="$(cd "${1:-$(dirname "$0")/..}" && pwd)"
home="${COURSE_HOME:-${HOME}/course}"
python -m pip install --no-cache-dir --constraint "$src/student/constraints.txt" "$src" "nbgitpuller==1.3.0"
mkdir -p "$home"
cp "$src"/student/*.ipynb "$home"/
