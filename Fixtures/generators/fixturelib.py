"""Shared helpers of the Python fixture generators: the manifest, checksums, never-overwrite.

The generators write new files only. A target that exists, or a path the manifest already
names, stops the run before anything is written: committed fixtures are never regenerated.
"""

import hashlib
import json
import os
import sys

FIXTURES = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = os.path.join(FIXTURES, "manifest.json")
ABOUT = (
    "Coffer compliance fixtures. One entry per file under Fixtures/ (README.md, manifest.json and "
    "generators/ excepted). Keys and passphrases are test data. Files are never regenerated: add new "
    "ones instead (see README.md)."
)


def fail(message):
    """Stops the generator with a message."""
    sys.stderr.write("error: " + message + "\n")
    sys.exit(1)


def load_manifest():
    """The manifest document (an empty one when the file does not exist yet)."""
    if not os.path.exists(MANIFEST):
        return {"manifestVersion": 1, "about": ABOUT, "entries": []}
    with open(MANIFEST, encoding="utf-8") as handle:
        return json.load(handle)


def refuse_existing(paths):
    """Fails when any target file exists or the manifest already names it."""
    known = {entry["path"] for entry in load_manifest()["entries"]}
    for path in paths:
        if os.path.exists(os.path.join(FIXTURES, path)):
            fail(f"Fixtures/{path} exists; fixtures are never regenerated: write new files under new names")
        if path in known:
            fail(f"the manifest already has an entry for {path}")


def sha256(path):
    """Hex SHA-256 of a fixture file."""
    with open(os.path.join(FIXTURES, path), "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def size(path):
    """Size in bytes of a fixture file."""
    return os.path.getsize(os.path.join(FIXTURES, path))


def append_entries(entries):
    """Adds entries (with their checksums) to the manifest, sorted by path; refuses duplicates."""
    manifest = load_manifest()
    known = {entry["path"] for entry in manifest["entries"]}
    for entry in entries:
        if entry["path"] in known:
            fail(f"the manifest already has an entry for {entry['path']}")
        entry["sha256"] = sha256(entry["path"])
        entry["size"] = size(entry["path"])
        manifest["entries"].append(entry)
        known.add(entry["path"])
    manifest["entries"].sort(key=lambda entry: entry["path"])
    manifest["about"] = ABOUT
    text = json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False, separators=(",", " : "))
    with open(MANIFEST, "w", encoding="utf-8") as handle:
        handle.write(text + "\n")
