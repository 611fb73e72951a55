# SPDX-License-Identifier: AGPL-3.0-or-later
"""search_knowledge as the spec's reference Python implementation does it.

A re-implementation, for bench/knowledge, of the behaviour described in
/work/shared/spec/search-knowledge-tool.md (class KnowledgeBase): every
line of every knowledge file is tried with re.search(query, line,
re.IGNORECASE); a matching line gets the nearest line starting with '#' at
or above it as its section, the lines around it as content, and the first
fenced block that opens and closes within ten lines before/after it as its
code example.  All files are searched in full, then the list is cut to
max_results.  The output has the spec's shape.

As a benchmark:

    reference_search.py KNOWLEDGE_DIR REGEXES_JSON [--repeat N] [--output FILE]

times N calls per pattern (after one warm-up call) over all categories
with context_lines 3 and max_results 10, and writes the figures as JSON.
Python 3 standard library only.
"""

import argparse
import json
import re
import sys
import time
from pathlib import Path

CATEGORIES = (
    "notation",
    "core_functions",
    "effects",
    "patterns",
    "vocabulary",
    "samples",
    "synths",
    "best_practices",
)

CODE_SEARCH_RADIUS = 10


class KnowledgeBase:
    """The eight curated notes, read once, searched line by line."""

    def __init__(self, directory="knowledge"):
        self.directory = Path(directory)
        self.texts = {}
        for category in CATEGORIES:
            path = self.directory / f"{category}.md"
            if path.is_file():
                self.texts[category] = path.read_text(encoding="utf-8")

    def search(self, query, category=None, context_lines=3, max_results=10):
        if category is None:
            searched = self.texts
        elif category in CATEGORIES:
            searched = {category: self.texts[category]}
        else:
            raise ValueError(f"unknown category {category!r}; one of {', '.join(CATEGORIES)}")

        found = []
        for name, text in searched.items():
            found += self._search_text(name, text, query, context_lines)
        found = found[:max_results]

        return {
            "matches": found,
            "total_matches": len(found),
            "query": query,
            "category_searched": category,
        }

    def _search_text(self, category, text, query, context_lines):
        lines = text.splitlines()
        hits = []
        for number, line in enumerate(lines):
            if not re.search(query, line, re.IGNORECASE):
                continue
            first = max(0, number - context_lines)
            last = min(len(lines), number + context_lines + 1)
            hits.append({
                "file": f"{category}.md",
                "section": self._heading_above(lines, number),
                "line_number": number + 1,
                "content": "\n".join(lines[first:last]),
                "code_example": self._nearby_code(lines, number),
            })
        return hits

    @staticmethod
    def _heading_above(lines, number):
        while number >= 0:
            if lines[number].startswith("#"):
                return lines[number].lstrip("#").strip()
            number -= 1
        return "Unknown"

    @staticmethod
    def _nearby_code(lines, number):
        # The window is [number - 10, number + 10): the first fence in it
        # opens a block, the next one closes it.  A block still open at the
        # window's end gives nothing.
        block = None
        for i in range(max(0, number - CODE_SEARCH_RADIUS), min(len(lines), number + CODE_SEARCH_RADIUS)):
            if lines[i].startswith("```"):
                if block is not None:
                    return "\n".join(block)
                block = []
            elif block is not None:
                block.append(lines[i])
        return None


def main():
    parser = argparse.ArgumentParser(description="Time the reference search_knowledge.")
    parser.add_argument("knowledge_dir")
    parser.add_argument("regexes_json")
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--output", "-o")
    args = parser.parse_args()

    with open(args.regexes_json, encoding="utf-8") as f:
        regexes = json.load(f)["regexes"]

    start = time.perf_counter_ns()
    base = KnowledgeBase(args.knowledge_dir)
    load_ns = time.perf_counter_ns() - start

    results = []
    for regex in regexes:
        first = base.search(regex, None, 3, 10)
        start = time.perf_counter_ns()
        for _ in range(max(1, args.repeat)):
            base.search(regex, None, 3, 10)
        elapsed = time.perf_counter_ns() - start
        results.append({
            "regex": regex,
            "total_matches": first["total_matches"],
            "matches": [[m["file"], m["line_number"]] for m in first["matches"]],
            "total_ns": elapsed,
        })

    report = {
        "python": sys.version.split()[0],
        "files": sorted(f"{c}.md" for c in base.texts),
        "knowledge_lines": sum(len(t.splitlines()) for t in base.texts.values()),
        "load_ns": load_ns,
        "search": {"repeat": max(1, args.repeat), "regexes": results},
    }
    text = json.dumps(report, indent=1)
    if args.output:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
    else:
        print(text)


if __name__ == "__main__":
    main()
