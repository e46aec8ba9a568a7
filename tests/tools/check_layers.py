#!/usr/bin/python3
"""check_layers.py: keeps the house's layers as docs/development.md "Layout" draws them.

src/core is five folders, each a layer that may use the layers below it and never one above:

    base < contract < job < store < run

(base: utilities that know nothing of models; contract: the model table, the SDK headers and
the plug-in boundary; job: job files, the grid and their checks; store: the result file, its
checksums and locks; run: scheduling, refinement, merging.) A file includes its own layer's
headers and lower ones by name ("error.h"); the models (src/models) include only base and
contract; the commands (src/cli) anything. Every C source or header in src/ is at most
MAX_LINES lines. Prints each violation as FILE:LINE: what, and exits 1 if there is one.

    tests/tools/check_layers.py [ROOT]
"""
import os
import re
import sys

ORDER = ["base", "contract", "job", "store", "run"]
MAX_LINES = 1000
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def main(root):
    core = os.path.join(root, "src", "core")
    layer_of = {}  # header base name -> layer
    problems = []
    for layer in os.listdir(core):
        path = os.path.join(core, layer)
        if not os.path.isdir(path):
            problems.append(f"src/core/{layer}: a file outside the layer folders")
            continue
        if layer not in ORDER:
            problems.append(f"src/core/{layer}: not a layer ({', '.join(ORDER)})")
            continue
        for name in os.listdir(path):
            if name.endswith(".h"):
                if name in layer_of:
                    problems.append(f"src/core/{layer}/{name}: also in {layer_of[name]}")
                layer_of[name] = layer

    for dirpath, _, names in os.walk(os.path.join(root, "src")):
        for name in sorted(names):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            parts = rel.split(os.sep)
            with open(path, encoding="utf-8") as f:
                lines = f.readlines()
            if len(lines) > MAX_LINES:
                problems.append(f"{rel}: {len(lines)} lines (at most {MAX_LINES}: split it "
                                "along a seam)")
            if parts[1] == "core":
                own = ORDER.index(parts[2])
                allowed = ORDER[: own + 1]
            elif parts[1] == "models":
                allowed = ["base", "contract"]
            else:
                allowed = ORDER
            for number, line in enumerate(lines, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(1)
                segments = target.split("/")
                if "core" in segments:  # a path: core/LAYER/x.h, ../../core/LAYER/x.h
                    i = segments.index("core")
                    layer = segments[i + 1] if i + 2 < len(segments) else None
                    if layer not in ORDER:
                        problems.append(f"{rel}:{number}: {target} names no layer folder")
                        continue
                elif len(segments) == 1 and target in layer_of:
                    if parts[1] != "core":
                        problems.append(f"{rel}:{number}: {target} by name from outside "
                                        "src/core (write its layer's path)")
                        continue
                    layer = layer_of[target]
                else:
                    continue  # a model's own header, a generated one, a system one
                if layer not in allowed:
                    problems.append(f"{rel}:{number}: includes {target} of layer {layer}, "
                                    f"above this file's ({' < '.join(allowed)})")
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} problem(s)")
        return 1
    print(f"check_layers: {len(layer_of)} core headers in {len(ORDER)} layers, every include "
          f"runs down, every source at most {MAX_LINES} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else
                  os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")))
