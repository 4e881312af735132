#!/usr/bin/env python3
"""Fails when code in src/ops/ or src/core/ writes an op's name as a string literal instead of
taking it from the op's row (ops::op_name(OpId::x) in ops/; in core/, below the table, the
generated src/core/op_names.h): the row is the one place an op's name is spelt, so errors, the
determinism messages and ditto-ops cannot drift apart.

    tools/check_op_names.py [--src DIR]

DIR (default: the repository's src/) holds ops/op_table.def, whose DITTO_OP rows give the names,
and the ops/*.cpp and core/*.cpp files checked. A literal that equals a row's name and is not the op's own name
(a user's reduction mode "sum", say) is listed in ALLOWED below with its reason. Comments are not
checked."""
import argparse
import pathlib
import re
import sys

# (file name, literal): why it stays a literal.
ALLOWED = {
    ("embedding_ops.cpp", "sum"): "embedding_bag's mode argument",
    ("embedding_ops.cpp", "mean"): "embedding_bag's mode argument",
    ("index_ops.cpp", "sum"): "scatter_reduce's reduce argument",
    ("index_ops.cpp", "mean"): "scatter_reduce's reduce argument",
    ("index_ops.cpp", "amax"): "scatter_reduce's reduce argument",
    ("index_ops.cpp", "amin"): "scatter_reduce's reduce argument",
    ("index_ops.cpp", "prod"): "scatter_reduce's reduce argument",
    ("index_ops.cpp", "add"): "scatter's reduce argument",
    ("formulas_scatter.cpp", "prod"): "scatter_reduce's reduce argument",
    ("formulas_nn.cpp", "tanh"): "gelu's approximate argument",
    ("pointwise_ops.cpp", "tanh"): "gelu's approximate argument",
    ("op_table.cpp", "view"): "the name of OpKind::View",
}


def literals(text):
    """Yields (line, literal) for each string literal outside comments."""
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
        elif c == "'":  # a character literal ('"' among them)
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            yield line, text[i + 1 : j]
            i = j + 1
        else:
            i += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", default=str(pathlib.Path(__file__).resolve().parent.parent / "src"))
    src = pathlib.Path(ap.parse_args().src)
    rows = (src / "ops" / "op_table.def").read_text()
    names = set(re.findall(r'DITTO_OP\(\s*\w+\s*,\s*"([^"]+)"', rows))
    if not names:
        sys.exit(f"{src / 'ops' / 'op_table.def'}: no DITTO_OP rows found")
    bad, used = [], set()
    for f in sorted((src / "ops").glob("*.cpp")) + sorted((src / "core").glob("*.cpp")):
        for line, lit in literals(f.read_text()):
            if lit not in names:
                continue
            if (f.name, lit) in ALLOWED:
                used.add((f.name, lit))
                continue
            how = "ops::op_name(OpId::...)" if f.parent.name == "ops" else "core/op_names.h"
            bad.append(f'{f.relative_to(src.parent)}:{line}: "{lit}" is an op\'s name: take it from its row ({how})')
    stale = [f'ALLOWED lists ({k[0]}, "{k[1]}"), which no longer occurs' for k in ALLOWED if k not in used]
    for msg in bad + stale:
        print(msg)
    if bad or stale:
        sys.exit(1)
    print(f"{len(names)} op names, none written as a literal in {src / 'ops'} or {src / 'core'}")


if __name__ == "__main__":
    main()
