#!/usr/bin/env python3
"""Checks the folder rule of Sources/Coffer (DESIGN.md §1): the core defines the platform, and
Extensions and Maintenance build on it, never the reverse.

A file under Core/ may not name a type (class, struct, enum, protocol, actor, typealias) declared
in a file under Extensions/ or Maintenance/, and no file under Utilities/, Cache/ or
Serialization/ may import the SQLite layer. Comments and string literals are ignored. Exits 1 and
lists every use found; run from anywhere.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2] / "Sources" / "Coffer"
UPPER_LAYERS = ["Extensions", "Maintenance"]
PURE_FOLDERS = ["Utilities", "Cache", "Serialization"]
DECLARATION = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|internal|private|fileprivate|package|final|open|static|indirect|nonisolated)\s+)*"
    r"(?:class|struct|enum|protocol|typealias|actor)\s+([A-Za-z_]\w*)"
)
COMMENT_OR_STRING = re.compile(r'"""[\s\S]*?"""|"(?:\\.|[^"\\\n])*"|/\*[\s\S]*?\*/|//[^\n]*')


def code(path):
    """The file's text without comments and string literals."""
    return COMMENT_OR_STRING.sub(" ", path.read_text(encoding="utf-8"))


def declared_names(folder):
    """Top-level type names declared under `folder`, each with the file declaring it.

    Nested types are left out: their short names (`Entry`, `Kind`) recur in every layer.
    """
    names = {}
    for path in sorted((ROOT / folder).rglob("*.swift")):
        for line in code(path).splitlines():
            if line.startswith((" ", "\t")):
                continue
            match = DECLARATION.match(line)
            if match:
                names.setdefault(match.group(1), path)
    return names


def main():
    upper = {}
    for folder in UPPER_LAYERS:
        upper.update(declared_names(folder))
    if not upper:
        print(f"check_layers: found no declarations under {UPPER_LAYERS} in {ROOT}", file=sys.stderr)
        return 2
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(upper))) + r")\b")
    violations = []
    for path in sorted((ROOT / "Core").rglob("*.swift")):
        for number, line in enumerate(code(path).splitlines(), start=1):
            for name in sorted(set(pattern.findall(line))):
                violations.append(
                    f"{path.relative_to(ROOT)}:{number}: uses {name}, declared in "
                    f"{upper[name].relative_to(ROOT)} (Core must not depend on Extensions or Maintenance)"
                )
    # The pure folders never reach SQLite: they hold values and logic the core binds and runs.
    for folder in PURE_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.swift")):
            for number, line in enumerate(code(path).splitlines(), start=1):
                if re.match(r"\s*(?:@\w+\s+)*(?:\w+\s+)?import\s+CofferSQLite\b", line):
                    violations.append(
                        f"{path.relative_to(ROOT)}:{number}: imports CofferSQLite ({folder} must not use the SQLite layer)"
                    )
    for violation in violations:
        print(violation, file=sys.stderr)
    if violations:
        return 1
    print(
        f"check_layers: Core uses nothing declared under {', '.join(UPPER_LAYERS)} ({len(upper)} types checked); "
        f"{', '.join(PURE_FOLDERS)} do not import CofferSQLite"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
