#!/usr/bin/env python3
"""The repository documents itself: no file points outside it, every relative Markdown link resolves, every
pointer to a section of a README (a folder's or the top-level one) names a heading that exists, and .gitignore
ignores what runs write into the working directory but not the recorded results. Usage: test_docs.py SOURCE_DIR"""
import os
import re
import subprocess
import sys

src = os.path.abspath(sys.argv[1])
failures = []


def fail(msg):
    failures.append(msg)
    print("test_docs: FAILED: " + msg)


def files():
    """The tracked files (git), else every file outside build and hidden directories."""
    try:
        out = subprocess.run(["git", "-C", src, "ls-files", "-co", "--exclude-standard"], capture_output=True,
                             text=True, check=True).stdout.split("\n")
        return [f for f in out if f and os.path.isfile(os.path.join(src, f))]
    except (OSError, subprocess.CalledProcessError):
        found = []
        for root, dirs, names in os.walk(src):
            dirs[:] = [d for d in dirs if not d.startswith(".") and not d.startswith("build")]
            found += [os.path.relpath(os.path.join(root, n), src) for n in names]
        return found


def text(path):
    with open(os.path.join(src, path), "rb") as f:
        data = f.read()
    if b"\0" in data:
        return None
    return data.decode("utf-8", "replace")


# Strings that point outside the repository (split so that this file does not match itself).
outside = ["SPEC" + ".md", "../" + "shared", "beside the " + "repository"]
headings = {}


def sections(readme):
    if readme not in headings:
        t = text(readme) if os.path.isfile(os.path.join(src, readme)) else None
        headings[readme] = set()
        for line in (t or "").split("\n"):
            m = re.match(r"#+\s+(.*\S)", line)
            if m:
                headings[readme].add(m.group(1).replace("`", ""))
    return headings[readme]


# A README's path (backquoted or not) or "top-level README", then section and a heading, quoted or not.
pointer = re.compile(r'(?:`?((?:[\w.-]+/)*README\.md)`?|top-level README)\)?,? \(?section "?([A-Z][^";)\n]*)')
all_files = files()
for path in all_files:
    t = text(path)
    if t is None:
        continue
    for s in outside:
        for n, line in enumerate(t.split("\n"), 1):
            if s in line:
                fail(f"{path}:{n}: points outside the repository ({s})")
    for m in pointer.finditer(t):
        readme = m.group(1) or "README.md"
        if not os.path.isfile(os.path.join(src, readme)):
            fail(f"{path}: names {readme}, which does not exist")
            continue
        quoted = t[m.start(2) - 1] == '"'
        words = m.group(2).split()
        names = [" ".join(words)] if quoted else [" ".join(words[:i]).rstrip(",.:") for i in range(1, len(words) + 1)]
        # A heading "On GPUs: `run.backend: cuda`" may be named by its part before the colon.
        known = sections(readme) | {h.split(":")[0] for h in sections(readme)}
        if not any(name in known for name in names):
            fail(f"{path}: {readme} has no section {m.group(2)!r}")
    if path.endswith(".md"):
        # Every row of a table has the header's columns (a "|" inside a code span must be written "\\|").
        lines = t.split("\n")
        for i in range(len(lines) - 1):
            header = lines[i].startswith("|") and (i == 0 or not lines[i - 1].startswith("|"))
            if header and re.match(r"^\|[-:| ]+\|$", lines[i + 1]):
                cols = len(re.findall(r"(?<!\\)\|", lines[i]))
                j = i + 2
                while j < len(lines) and lines[j].startswith("|"):
                    if len(re.findall(r"(?<!\\)\|", lines[j])) != cols:
                        fail(f"{path}:{j + 1}: a table row without the header's {cols - 1} columns")
                    j += 1
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", t):
            if re.match(r"[a-z]+:", target):
                continue
            if not os.path.exists(os.path.normpath(os.path.join(src, os.path.dirname(path), target))):
                fail(f"{path}: link to {target}, which does not exist")

for readme in ("kernels/README.md", "mesh/README.md", "app/README.md"):
    if readme not in all_files:
        fail(f"{readme} is missing")

# .gitignore: outputs of runs in the working directory are ignored, the recorded sweeps are not.
try:
    subprocess.run(["git", "-C", src, "rev-parse"], capture_output=True, check=True)
    have_git = True
except (OSError, subprocess.CalledProcessError):
    have_git = False
if have_git:
    def ignored(p):
        return subprocess.run(["git", "-C", src, "check-ignore", "-q", "--no-index", p]).returncode == 0
    for p in ["hexcontract-results.yaml", "bench-results/bench.csv", "scaling-weak-20261123-101010/run_np1.yaml",
              "weak-openmp/report.md", "report.md", "report.csv", "runs.csv", "efficiency.png", "roofline.png",
              "nightly.log", "hexcontract-scaling-123.log", "A.npy", "dump_FieldFieldScalar_out.npy"]:
        if not ignored(p):
            fail(f".gitignore does not ignore {p}, which a run writes into the working directory")
    for p in ["run_scripts/results/h200-cpu-weak/run_np1.yaml", "run_scripts/results/h200-cpu-weak/report.md",
              "run_scripts/results/h100-cpu-ranks-threads/runs.csv", "run_scripts/results/x/roofline.png",
              "inputs/weak.yaml", "tests/data/results/weak/run_np1.yaml"]:
        if ignored(p):
            fail(f".gitignore ignores {p}, which is part of the repository")
else:
    print("test_docs: no git checkout: .gitignore not checked")

print("test_docs: " + ("FAILED" if failures else "passed") + f" ({len(all_files)} files)")
sys.exit(1 if failures else 0)
