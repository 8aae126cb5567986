"""The documentation prints what robodesc prints: every example in it is run.

* **Python.** Every ```python block runs, on its own, in a fresh interpreter. A block directly
  followed by a ```text block (nothing but blank lines between them) must print exactly that
  text; any other block must run and print nothing (an example that prints shows what it prints).
* **The command line.** Every block whose first line starts with `$ ` is a terminal session: each
  `$ ` line runs in a shell, in turn, and what it prints (standard output and error together) must
  be the lines under it, up to the next `$ `. A line `...` stands for any number of lines. `pip`
  commands (they install) are not run; `robodesc view`, a server, is compared on what it prints
  while it serves, then stopped as Ctrl-C stops it (tests/test_viewer.py drives the page itself).
* **Files.** A block with a title (```xml title="gripper.xml"``` ...) is a file the page's examples
  use: it is written, under its title, into the folder every example of that page runs in, beside a
  copy of the repository's `examples/` (the paths the docs use, such as "examples/arm.urdf").

Each example gets a folder of its own, so it cannot lean on another's state or on the checkout's
other files. Two normalisations: memory addresses (`0x7f...`) and local ports (`127.0.0.1:8080`)
differ from run to run. Examples that need the reference corpus (`ROBODESC_CORPUS`) or the network
(they import urllib, requests or httpx) skip, and so does one that stops on robodesc's
`MissingDependency` (an optional extra, such as viser for the viewer, not installed here) or that
reads xacro when the robodesc-xacro plugin cannot be found. Examples show what robodesc's own
formats print: other installed plugins are left out, except on the xacro plugin's page.

docs/plugins.md's examples need the guide's toy plugin installed first; tests/test_docs_plugins.py
runs them, so they are left out here.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import NamedTuple

import pytest
import test_docs_plugins

ROOT = Path(__file__).parents[1]
DOCS = ROOT / "docs"
CHECKED_ELSEWHERE = {"plugins.md": "tests/test_docs_plugins.py, with the guide's toy plugin installed"}
XACRO_PAGE = "xacro.md"
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```\n", re.S | re.M)
TITLE = re.compile(r'\btitle="([^"]+)"')
ADDRESS = re.compile(r"\b0x[0-9a-fA-F]+\b")
PORT = re.compile(r"\b127\.0\.0\.1:\d+")
NEEDS_CORPUS = re.compile(r"ROBODESC_CORPUS")
NEEDS_NETWORK = re.compile(r"^\s*(?:import|from)\s+(?:urllib|requests|httpx)\b", re.M)
NOT_RUN = re.compile(r"^pip ")
SERVES = re.compile(r"^robodesc view ")


class Block(NamedTuple):
    language: str
    title: str | None
    body: str
    line: int
    start: int
    end: int


def blocks_in(text: str) -> list[Block]:
    found = []
    for m in FENCE.finditer(text):
        info = m[1].strip()
        title = TITLE.search(info)
        found.append(
            Block(info.split(" ")[0], title[1] if title else None, m[2], text.count("\n", 0, m.start()) + 1, *m.span())
        )
    return found


def examples_in(text: str) -> list[tuple[str, str | None, int]]:
    """(code, printed text or None, line) of each python block that is no file."""
    found = blocks_in(text)
    examples = []
    for block, after in zip(found, [*found[1:], None]):
        if block.language != "python" or block.title:
            continue
        shown = (
            after is not None
            and after.language == "text"
            and not after.title
            and not text[block.end : after.start].strip()
        )
        examples.append((block.body, after.body if shown and after else None, block.line))
    return examples


def sessions_in(text: str) -> list[tuple[list[tuple[str, str]], int]]:
    """([(command, what it prints), ...], line) of each block that is a terminal session."""
    found = []
    for block in blocks_in(text):
        if block.title or not block.body.startswith("$ "):
            continue
        steps: list[tuple[str, str]] = []
        for line in block.body.splitlines(keepends=True):
            if line.startswith("$ "):
                steps.append((line[2:].strip(), ""))
            else:
                steps[-1] = (steps[-1][0], steps[-1][1] + line)
        found.append((steps, block.line))
    return found


def files_in(text: str) -> dict[str, str]:
    return {block.title: block.body for block in blocks_in(text) if block.title}


def pages() -> list[Path]:
    """Every page of the docs, and the README (the first page a newcomer reads)."""
    docs = sorted(p for p in DOCS.rglob("*.md") if p.relative_to(DOCS).as_posix() not in CHECKED_ELSEWHERE)
    return [ROOT / "README.md", *docs]


def page_id(page: Path, line: int) -> str:
    return f"{page.relative_to(DOCS if page.is_relative_to(DOCS) else ROOT).as_posix()}:{line}"


EXAMPLES = [
    pytest.param(page, code, out, id=page_id(page, line))
    for page in pages()
    for code, out, line in examples_in(page.read_text())
]
SESSIONS = [
    pytest.param(page, steps, id=page_id(page, line))
    for page in pages()
    for steps, line in sessions_in(page.read_text())
]


def normalised(text: str) -> str:
    return PORT.sub("127.0.0.1:PORT", ADDRESS.sub("0x...", text))


def matches(printed: str, shown: str) -> bool:
    """`printed` is `shown`, where a line `...` of `shown` stands for any number of lines."""
    pattern = "".join(r"(?:.*\n)*?" if line == "...\n" else re.escape(line) for line in shown.splitlines(keepends=True))
    return re.fullmatch(pattern, printed) is not None


def xacro_plugin_path() -> str:
    """Where the robodesc-xacro plugin is found in this process (its package and its distribution's
    metadata: its own tests may have put them on the path), for an example's interpreter to find it
    too; skips when there is none."""
    try:
        site = distribution("robodesc-xacro").locate_file("")
        import robodesc_xacro
    except (PackageNotFoundError, ImportError):
        pytest.skip("needs the robodesc-xacro plugin (pip install -e ./plugins/robodesc-xacro)")
    return os.pathsep.join([str(Path(robodesc_xacro.__file__).parents[1]), str(site)])


@functools.cache
def plugins_a_new_interpreter_finds() -> str:
    """The installed plugins that are not robodesc's own, as a new interpreter finds them (not the
    xacro plugin its tests put on this process's path), as ROBODESC_DISABLE_PLUGINS takes them."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = "from conftest import other_plugins; print(other_plugins())"
    found = subprocess.run(
        [sys.executable, "-c", code], cwd=Path(__file__).parent, env=env, capture_output=True, text=True
    )
    assert found.returncode == 0, found.stderr
    return found.stdout.strip()


def environment(page: Path) -> dict[str, str]:
    """The docs show robodesc with its own formats only, except on the xacro plugin's page."""
    env = {k: v for k, v in os.environ.items() if k not in ("ROBODESC_DISABLE_PLUGINS", "PYTHONPATH")}
    if page.name == XACRO_PAGE:
        env["PYTHONPATH"] = xacro_plugin_path()
    elif others := plugins_a_new_interpreter_finds():
        env["ROBODESC_DISABLE_PLUGINS"] = others
    return env


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A folder of the example's own, so files one example writes are not there for the next."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    return tmp_path


def with_files(workspace: Path, page: Path) -> Path:
    for name, body in files_in(page.read_text()).items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(body)
    return workspace


def test_the_convention_finds_examples_sessions_and_files():
    text = (
        "```python\nprint(1)\n```\n\n```text\n1\n```\n"
        "```python\nprint(2)\n```\nProse between.\n```text\nnot its output\n```\n"
        "```python\nx = 3\n```\n```bash\nrobodesc check x\n```\n"
        '```xml title="a.xml"\n<robot/>\n```\n'
        "```\n$ robodesc info a.xml\nmodel: a\n$ robodesc tree a.xml\n```\n"
    )
    assert examples_in(text) == [("print(1)\n", "1\n", 1), ("print(2)\n", None, 8), ("x = 3\n", None, 15)]
    assert files_in(text) == {"a.xml": "<robot/>\n"}
    assert sessions_in(text) == [([("robodesc info a.xml", "model: a\n"), ("robodesc tree a.xml", "")], 24)]
    assert matches("a\nb\nc\nd\n", "a\n...\nd\n") and matches("a\nd\n", "a\n...\nd\n")
    assert not matches("a\nb\n", "a\n...\nd\n")


def test_the_plugin_guide_follows_the_same_convention():
    """tests/test_docs_plugins.py runs the guide's examples; by this file's rule they are the same."""
    guide = [(code, out) for code, out, _ in examples_in(test_docs_plugins.GUIDE.read_text()) if out is not None]
    assert guide == test_docs_plugins.examples()


def test_the_getting_started_page_checks_its_main_examples():
    """The page a new user copies from first: its examples must keep their printed output."""
    assert sum(out is not None for _, out, _ in examples_in((DOCS / "getting-started.md").read_text())) >= 10


def cited_names() -> list[str]:
    """Every dotted name under robodesc the docs cite in code spans (`robodesc.core.Model`...)."""
    found = set()
    for page in sorted(DOCS.rglob("*.md")):
        found.update(re.findall(r"`(robodesc(?:\.[A-Za-z_]\w*)+)", page.read_text()))
    return sorted(found)


def resolve(dotted: str) -> object:
    """The object a dotted name names: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for attribute in parts[split:]:
            found = getattr(found, attribute)
        return found
    raise ImportError(dotted)


@pytest.mark.parametrize("dotted", cited_names())
def test_every_name_the_docs_cite_exists(dotted: str):
    """A module, class or constant moved or renamed leaves no stale reference in the docs
    (mkdocs checks links, not the names in code spans)."""
    resolve(dotted)


@pytest.mark.parametrize(("page", "code", "expected"), EXAMPLES)
def test_each_example_prints_what_the_docs_show(workspace: Path, page: Path, code: str, expected: str | None):
    if NEEDS_CORPUS.search(code):
        if not os.environ.get("ROBODESC_CORPUS"):
            pytest.skip("needs the reference corpus (ROBODESC_CORPUS)")
    if NEEDS_NETWORK.search(code):
        pytest.skip("needs the network")
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=with_files(workspace, page),
        env=environment(page),
        input="\n",  # an example that waits for Enter gets it
        capture_output=True,
        text=True,
        timeout=300,
    )
    if result.returncode != 0 and re.search(r"\bMissingDependency\b", result.stderr):
        pytest.skip(f"needs an optional extra: {result.stderr.strip().splitlines()[-1]}")
    assert result.returncode == 0, result.stderr
    assert normalised(result.stdout).rstrip() == normalised(expected or "").rstrip()  # (a prompt ends no line)


def serving(command: str, workspace: Path, env: dict[str, str]) -> tuple[str, str]:
    """(what a server command printed before it served, its standard error): started, read up to
    its first line, then interrupted as Ctrl-C interrupts it, which must stop it cleanly."""
    server = subprocess.Popen(
        shlex.split(command), cwd=workspace, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        first = server.stdout.readline() if server.stdout else ""
        server.send_signal(signal.SIGINT)
        _, stderr = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert server.returncode == 0 or not first, f"$ {command}: Ctrl-C gave status {server.returncode}\n{stderr}"
    return first, stderr


@pytest.mark.parametrize(("page", "steps"), SESSIONS)
def test_each_terminal_session_prints_what_the_docs_show(workspace: Path, page: Path, steps: list[tuple[str, str]]):
    with_files(workspace, page)
    env = environment(page)
    ran = 0
    for command, shown in steps:
        if NOT_RUN.match(command):
            continue
        if command == "robodesc plugins" and "ROBODESC_DISABLE_PLUGINS" in env:
            continue  # it would list the other installed plugins, disabled (none where the README installs)
        if SERVES.match(command):
            stdout, stderr = serving(command, workspace, env)
        else:
            result = subprocess.run(
                command, shell=True, cwd=workspace, env=env, capture_output=True, text=True, timeout=300
            )
            stdout, stderr = result.stdout, result.stderr
        if re.search(r"\bMissingDependency\b|pip install .robodesc\[", stderr):
            pytest.skip(f"needs an optional extra: {stderr.strip().splitlines()[-1]}")
        printed = normalised(stdout + stderr)
        assert matches(printed, normalised(shown)), f"$ {command}\n{printed}"
        ran += 1
    if not ran:
        pytest.skip("only pip commands: not run here")
