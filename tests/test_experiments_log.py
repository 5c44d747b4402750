"""The experiments journal in experiments/log/ and its table of decisions stay navigable: the README
lists every file in reading order, no file grows past the split size, and every decision links to
a heading that exists."""
import re
import subprocess
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "experiments" / "log"
DECISIONS = ROOT / "experiments" / "decisions.md"
OLD_LOG = "experiments/" + "log.md"  # split, so that this file does not name it
MAX_BYTES = 64 * 1024  # "about 60 KB": past it, a new session starts a new file


def github_anchor(heading):
    """GitHub's anchor for a heading: rendered text, lower case, punctuation dropped, spaces to -."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").replace("*", "")
    kept = (ch for ch in text.strip().lower()
            if ch in "-_ " or unicodedata.category(ch)[0] in "LNM" or unicodedata.category(ch) == "Pc")
    return "".join(kept).replace(" ", "-")


def anchors(path):
    seen, out, fence = {}, set(), False
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.startswith("```"):
            fence = not fence
        match = None if fence else re.match(r"^#{1,6} (.*)$", line)
        if match:
            base = github_anchor(match.group(1))
            count = seen.get(base, 0)
            out.add(base if count == 0 else f"{base}-{count}")
            seen[base] = count + 1
    return out


def journal_files():
    return sorted(p.name for p in LOG.glob("*.md") if p.name != "README.md")


def test_the_readme_lists_every_journal_file_in_reading_order():
    listed = re.findall(r"^\| \[([^\]]+\.md)\]\(\1\)", (LOG / "README.md").read_text(encoding="utf-8"), re.M)
    assert listed == journal_files()
    assert len(listed) > 1


@pytest.mark.parametrize("name", journal_files())
def test_no_journal_file_is_past_the_split_size(name):
    assert (LOG / name).stat().st_size <= MAX_BYTES, f"{name}: start a new file (experiments/log/README.md)"


def test_every_decision_links_to_a_log_heading():
    rows = [line for line in DECISIONS.read_text(encoding="utf-8").splitlines() if line.startswith("| 20")]
    assert len(rows) > 50
    for row in rows:
        links = re.findall(r"\]\((log/[^)#]+)#([^)]+)\)", row)
        assert len(links) == 1, row
        target, anchor = links[0]
        assert (DECISIONS.parent / target).is_file(), row
        assert anchor in anchors(DECISIONS.parent / target), row
        assert re.search(r"\| (\*\*adopted\*\*|not adopted|\*blocked\*) \|", row), row


def test_nothing_points_at_the_old_single_file_log():
    try:
        tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    stale = []
    for name in tracked.split():
        path = ROOT / name
        if name == "docs/CHANGELOG.md" or not path.is_file() or path.suffix not in {".md", ".py", ".sh", ".json", ".toml"}:
            continue  # the changelog records what was true when each entry was written
        if OLD_LOG in path.read_text(encoding="utf-8", errors="replace"):
            stale.append(name)
    assert stale == []
