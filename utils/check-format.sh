#!/usr/bin/env bash
# Every C and C++ file in git follows the one .clang-format (clang-format-19).
set -euo pipefail
cd "$(dirname "$0")/.."
cf=$(command -v clang-format-19 || true)
if [ -z "$cf" ]; then
  echo "check-format: clang-format-19 not installed (utils/setup.sh installs it)" >&2
  exit 1
fi
git ls-files '*.cpp' '*.h' '*.c' | xargs "$cf" --dry-run -Werror
echo "format: every file follows .clang-format"
