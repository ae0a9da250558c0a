#!/usr/bin/env bash
# The single-user image's install, tested without docker: a fresh venv, deploy/install-course.sh
# exactly as the Dockerfile runs it, then the kernel and test tools the base image would bring
# (ipykernel, nbval, pytest), and every student notebook top to bottom under nbval.
# Opt-in (it downloads about 200 MB); run from anywhere:  bash deploy/check-install.sh
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
. "$work/venv/bin/activate"
export PIP_DISABLE_PIP_VERSION_CHECK=1
COURSE_HOME="$work/course" bash "$src/deploy/install-course.sh" "$src"
python -m pip install --quiet "ipykernel>=6.29,<8" "nbval>=0.11,<0.12" "pytest>=8.3,<10"
python -m pip freeze | grep -iE "^(labsupport|numpy|pandas|altair|simpy|ipywidgets|vl-convert-python|nbgitpuller)[=@ ]"
cd "$work/course"
python -m pytest -p no:cacheprovider --nbval-lax -q -o addopts="" -W "ignore:.*Kernel is running over TCP.*" ./*.ipynb
