#!/usr/bin/python3
"""check_docs.py: keeps README.md a front page and the documentation free of issue numbers.

README.md is the way in: at most 700 lines, the rest of the documentation in docs/*.md.
Neither README.md nor any docs/*.md page (every page, also those added later) may cite a
numbered issue ("issue 30", "issues 21 and 27", "#28", "bars/28"): a reader has no
access to the tracker, and the text is to say what the code does and why. Colours
(#e69f00), anchors (#first-day) and C (#include, #define) are not references.

Usage: check_docs.py SOURCE_DIR     (exit 1 naming every file and line that breaks a rule)
       check_docs.py --self-test    (the rules against known good and bad lines)
"""
import glob
import os
import re
import sys

MAX_README_LINES = 700

# "issue 30", "Issue 26's", "issues #21", "issues 21 and 27" (the first number is enough);
# "bars/30"; "#28" or "#123" not preceded by a word character or '&' (an HTML entity) and
# not followed by a hex digit or a word character (so #e69f00, #c8102e and #595959 are
# colours: a 6-digit run is a colour, never an issue of this size).
ISSUE = re.compile(
    r"\bissues?\s+#?[0-9]+\b"
    r"|\bbars/[0-9]+"
    r"|(?<![\w&/])#[0-9]{2,5}(?![0-9a-fA-F\w])",
    re.IGNORECASE)


def issue_refs(text):
    """The (line number, line) pairs of TEXT that cite a numbered issue."""
    return [(n, line) for n, line in enumerate(text.split("\n"), 1) if ISSUE.search(line)]


def self_test():
    bad = ["as issue 30 asked", "Issue 26, measured", "see issues 21 and 27", "(bars/28)",
           "fixed in #28.", "issue #7", "the 12th case (#123)", "ISSUE 13's aims"]
    good = ["colours: icc #56b4e9, cc #e69f00, failed #c8102e, no value #595959",
            "see [First day](#first-day)", "#include <impactsweep/model.h>",
            "#define N 12", "an issue of rounding", "issues with 10^4 ranks",
            "sample #d9d9d9", "&#8805;200", "a tissue 30 mm thick"]
    failures = [b for b in bad if not ISSUE.search(b)] + [g for g in good if ISSUE.search(g)]
    for f in failures:
        print("check_docs self-test: wrong verdict on %r" % f)
    return 1 if failures else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2:
        print(__doc__.strip().split("\n\n")[-1])
        return 2
    if self_test():
        return 1
    root = argv[1]
    readme = os.path.join(root, "README.md")
    pages = [readme] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    problems = []
    with open(readme, encoding="utf-8") as f:
        count = f.read().count("\n")
    if count > MAX_README_LINES:
        problems.append("README.md: %d lines, more than the front page's %d: move the rest "
                        "into docs/" % (count, MAX_README_LINES))
    for page in pages:
        with open(page, encoding="utf-8") as f:
            text = f.read()
        for n, line in issue_refs(text):
            problems.append("%s:%d: cites a numbered issue (say what the code does and why): %s"
                            % (os.path.relpath(page, root), n, line.strip()))
    for p in problems:
        print(p)
    if not problems:
        print("README.md %d lines (at most %d); %d pages without issue numbers"
              % (count, MAX_README_LINES, len(pages)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
