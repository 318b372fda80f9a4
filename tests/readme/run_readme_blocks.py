#!/usr/bin/env python3
"""Runs the README's code blocks, so that a stale example fails the test suite.

- ```cpp blocks are compiled (-fsyntax-only: every name, type and call checked, templates
  instantiated, no code generated). A block is a fragment: its #include lines and its
  namespace-scope declarations (lines from column 0 starting `struct`, `class`, `template`
  or `namespace`, to the next line starting `};`) go first, then tests/readme/givens.hpp
  (the names blocks take as given, such as `tree` and `points`), then the rest as the body
  of a function. A block that includes <quoct/mpi.hpp> needs --mpi-flags.
- ```python blocks run with the built module first on PYTHONPATH, from the repository's top
  (they read data/).
- ```sh blocks: their `quoct` commands (lines starting ./build/src/quoct, or the printf or
  ogr2ogr lines feeding them) run in bash with -e and pipefail, in a scratch folder where
  build/src/quoct is the built command and data/ the repository's data, all blocks in one
  folder in README order. Lines of known build steps (package installs, cmake, ctest, the
  venv and pip, mpiexec, fuzzing) are listed, not run; any other line fails the test. A ```text block
  after a sh block (with only prose between) is what its last command prints: every line
  of it but those starting "..." must appear in that output, in order.
- ```cmake and other blocks are not run (the install-and-find_package test builds a
  consumer of the installed package).

Exit status 0 when every block passed; 1 with the block's README line, what ran and what
it printed otherwise. A part that was not built (no command, no Python module, no GDAL,
no MPI) skips the blocks that need it, and says so.
"""

import argparse
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys


def blocks(readme):
    """(language, first line number, text, prose since the previous block) of each fence."""
    out, lang, start, body, prose = [], None, 0, [], []
    for number, line in enumerate(readme.read_text(encoding="utf-8").splitlines(), 1):
        if lang is None:
            m = re.match(r"^```(\w*)\s*$", line)
            if m:
                lang, start, body = m.group(1) or "text", number + 1, []
            else:
                prose.append(line)
        elif line.startswith("```"):
            out.append((lang, start, "\n".join(body) + "\n", "\n".join(prose)))
            lang, prose = None, []
        else:
            body.append(line)
    return out


def cpp_source(text, line):
    """A translation unit of a README C++ fragment."""
    top, body, in_decl = [], [], False
    for row in text.splitlines():
        # `x = /* ... */;` stands for a value the reader has: value-initialise it.
        row = re.sub(r"= /\*[^*]*\*/;", "= {};", row)
        if in_decl:
            top.append(row)
            in_decl = not row.startswith("};")
        elif row.startswith("#include"):
            top.append(row)
        elif re.match(r"^(struct|class|template|namespace)\b", row):
            top.append(row)
            in_decl = not row.rstrip().endswith("};")
        else:
            body.append(row)
            continue
        body.append("")  # moved to the top; the line numbers of the rest stay the README's
    includes = [r for r in top if r.startswith("#include")]
    decls = [r for r in top if not r.startswith("#include")]
    return "\n".join(
        [f"// README.md line {line}, made by tests/readme/run_readme_blocks.py"] + includes +
        ['#include "givens.hpp"'] + decls +
        ["void readme_block() {", f"#line {line} \"README.md\""] + body + ["}", ""])


def logical_lines(text):
    """Shell lines joined across backslash and pipe continuations."""
    lines, current = [], ""
    for row in text.splitlines():
        current += row.rstrip("\\").rstrip() + " " if row.rstrip().endswith("\\") else row + "\n"
        if not (row.rstrip().endswith("\\") or row.rstrip().endswith("|")):
            lines.append(current.rstrip("\n"))
            current = ""
    if current.strip():
        lines.append(current.rstrip("\n"))
    return [l for l in lines if l.strip()]


RUN_PREFIXES = ("./build/src/quoct", "printf", "ogr2ogr")
# Build steps: lines of sh blocks that install or build, which this test does not run. Any
# other line fails the test, so a command written another way cannot slip through unrun.
BUILD_PREFIXES = ("$(command -v sudo) apt-get", "sudo apt-get", "cmake ", "ctest ", "/usr/bin/python3 -m venv",
                  "venv/bin/pip", "mpiexec ", "tests/fuzz/run", "build-fuzz/")
LANGUAGES = ("cpp", "python", "sh", "text", "cmake")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", required=True, type=pathlib.Path, help="the repository's top")
    ap.add_argument("--scratch", required=True, type=pathlib.Path, help="a folder to work in (emptied)")
    ap.add_argument("--cxx", required=True, help="the C++ compiler")
    ap.add_argument("--cxx-flags", default="", help="more compiler flags (include folders)")
    ap.add_argument("--mpi-flags", default=None, help="the compiler flags MPI needs; blocks using MPI skip without")
    ap.add_argument("--quoct", default=None, help="the built quoct command; sh blocks skip without")
    ap.add_argument("--gdal", action="store_true", help="the command reads GDAL formats and ogr2ogr is there")
    ap.add_argument("--python", default=None, help="the interpreter for python blocks")
    ap.add_argument("--python-path", default=None, help="the folder holding the built package quoct")
    args = ap.parse_args()

    readme = args.source / "README.md"
    shutil.rmtree(args.scratch, ignore_errors=True)
    (args.scratch / "build" / "src").mkdir(parents=True)
    if args.quoct:
        os.symlink(os.path.abspath(args.quoct), args.scratch / "build" / "src" / "quoct")
    os.symlink(args.source / "data", args.scratch / "data")

    failures, ran, skipped = [], 0, []
    last_output = None  # (line, output) of the last sh block's last command

    def fail(line, what, detail):
        failures.append(f"README.md:{line}: {what}\n{detail}")

    for lang, line, text, prose in blocks(readme):
        if lang == "text" and last_output is not None and "```" not in prose:
            out_lines = [l.rstrip() for l in last_output.splitlines()]
            at = 0
            for want in text.splitlines():
                if want.startswith("...") or not want.strip():
                    continue
                try:
                    at = out_lines.index(want.rstrip(), at) + 1
                except ValueError:
                    fail(line, "the printed output shown here is not what the command prints",
                         f"missing (in this order): {want!r}\nthe command printed:\n{last_output[:4000]}")
                    break
            else:
                ran += 1
            last_output = None
            continue
        last_output = None
        if lang not in LANGUAGES:
            fail(line, f"a code block of an unknown kind ({lang}): name it cpp, python, sh, text or cmake", text[:200])
            continue
        if lang == "cpp":
            source = cpp_source(text, line)
            flags = shlex.split(args.cxx_flags)
            if "quoct/mpi.hpp" in text:
                if args.mpi_flags is None:
                    skipped.append(f"README.md:{line} (C++ with MPI: no MPI)")
                    continue
                flags += shlex.split(args.mpi_flags) + ["-DQUOCT_README_MPI"]
            path = args.scratch / f"block_{line}.cpp"
            path.write_text(source, encoding="utf-8")
            cmd = [args.cxx, "-std=c++17", "-fsyntax-only", "-I", str(pathlib.Path(__file__).parent)] + flags + [str(path)]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                fail(line, "the C++ block does not compile", f"{shlex.join(cmd)}\n{r.stderr[:6000]}\n--- {path}:\n{source}")
            else:
                ran += 1
        elif lang == "python":
            if not (args.python and args.python_path):
                skipped.append(f"README.md:{line} (Python: no module built)")
                continue
            env = dict(os.environ, PYTHONPATH=args.python_path, PYTHONDONTWRITEBYTECODE="1")
            r = subprocess.run([args.python, "-c", text], cwd=args.source, env=env, capture_output=True, text=True)
            if r.returncode != 0:
                fail(line, "the Python block fails", r.stderr[-6000:])
            else:
                ran += 1
        elif lang == "sh":
            lines = logical_lines(text)
            run = [l for l in lines if l.startswith(RUN_PREFIXES)]
            unknown = [l for l in lines if l not in run and not l.startswith(BUILD_PREFIXES)]
            if unknown:
                fail(line, "a sh line that is neither a quoct command nor a known build step", "\n".join(unknown))
                continue
            for l in lines:
                if l not in run:
                    print(f"README.md:{line}: a build step, not run here: {l[:100]}")
            if not run:
                continue
            if not args.quoct:
                skipped.append(f"README.md:{line} (quoct commands: the command is not built)")
                continue
            if not args.gdal and any("ogr2ogr" in l or ".gpkg" in l for l in run):
                skipped.append(f"README.md:{line} (GIS files: no GDAL)")
                continue
            script = "set -eo pipefail\n" + "\n".join(run) + "\n"
            # The last command's output alone, for a ```text block that may follow.
            r = subprocess.run(["bash", "-c", "set -eo pipefail\n" + "\n".join(run[:-1]) + "\n"] if len(run) > 1 else ["true"],
                               cwd=args.scratch, capture_output=True, text=True)
            if r.returncode == 0:
                r = subprocess.run(["bash", "-c", "set -eo pipefail\n" + run[-1] + "\n"], cwd=args.scratch,
                                   capture_output=True, text=True)
            if r.returncode != 0:
                fail(line, "the sh block fails", f"{script}exit {r.returncode}\n{r.stderr[-4000:]}")
            else:
                ran += 1
                last_output = r.stdout

    for s in skipped:
        print(f"skipped {s}")
    for f in failures:
        print(f"FAILED {f}\n", file=sys.stderr)
    print(f"README code blocks: {ran} passed, {len(failures)} failed, {len(skipped)} skipped")
    if not failures and ran == 0:
        print("no block could be checked: nothing was built that they need", file=sys.stderr)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
