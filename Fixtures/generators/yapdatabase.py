#!/usr/bin/env python3
"""Writes YapDatabase-schema fixtures with the `sqlcipher` shell (SQLCipher 3.4.1), as an
independent writer: Coffer's code takes no part in making them.

    python3 Fixtures/generators/yapdatabase.py            # writes Fixtures/yapdatabase/*.db
    python3 Fixtures/generators/yapdatabase.py --print-sql  # the SQL for yapdatabase.sql

The rows live in yapdatabase.sql as X'…' literals, in the formats YapDatabase's serializers
produce: JSON (Swift Codable), binary property lists (made here with plistlib) and timestamps
(the 8-byte little-endian double of timeIntervalSinceReferenceDate). Before writing, this script
recomputes every literal from the values below and stops if the committed SQL differs.

Refuses to run when a target file exists or the manifest names it: fixtures are never regenerated.
"""

import sys

sys.dont_write_bytecode = True  # keep generators/ free of __pycache__

import json
import os
import plistlib
import struct
import subprocess

import fixturelib

GENERATOR = "Fixtures/generators/yapdatabase.py"
GENERATOR_VERSION = "1.0.0"
SQL_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "yapdatabase.sql")
SHELL = "/usr/bin/sqlcipher"

PASSPHRASE = "yapdatabase fixture passphrase"
RAW_KEY = bytes(range(0x60, 0x80)).hex()
IMPORT_KEY = bytes(range(0x80, 0xA0)).hex()
SNAPSHOT = 42


def note(title, body, tags):
    return ("json:Note", {"title": title, "body": body, "tags": tags})


def settings(theme, font_size, sync, servers):
    return ("plist:Settings", {"theme": theme, "fontSize": font_size, "sync": sync, "servers": servers})


def timestamp(seconds):
    return ("timestamp", seconds)


# (collection, key, object, metadata or None)
ROWS = [
    ("", "readme", note("Nil collection", "stored under the empty collection", []), None),
    ("dates", "epoch", timestamp(-978307200.0), None),
    ("dates", "fraction", timestamp(123456789.125), None),
    ("dates", "reference", timestamp(0.0), None),
    ("notes", "n1", note("Groceries", "Milk, eggs", ["home"]), timestamp(700000000.25)),
    ("notes", "n2", note("Ünïcödé ✓", "日本語のテキスト", ["i18n", "test"]), timestamp(-12345.5)),
    ("notes", "n3", note("No metadata", "", []), None),
    ("notes", "ключ", note("Unicode key", "the key is not ASCII", []), None),
    ("settings", "alt", settings("dark", 15, True, ["sync.example.org"]), None),
    ("settings", "main", settings("light", 12, False, []), None),
]

SERIALIZERS = [
    {"collection": "", "object": {"codec": "json:Note", "stages": []}},
    {"collection": "dates", "object": {"codec": "timestamp", "stages": []}},
    {
        "collection": "notes",
        "object": {"codec": "json:Note", "stages": []},
        "metadata": {"codec": "timestamp", "stages": []},
    },
    {"collection": "settings", "object": {"codec": "plist:Settings", "stages": []}},
]


def encode(value):
    """The blob YapDatabase's serializer for `value`'s codec produces."""
    codec, payload = value
    if codec.startswith("json:"):
        # Swift's JSONEncoder with .sortedKeys: no spaces, UTF-8, keys sorted.
        return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if codec.startswith("plist:"):
        return plistlib.dumps(payload, fmt=plistlib.FMT_BINARY, sort_keys=True)
    if codec == "timestamp":
        return struct.pack("<d", payload)
    raise ValueError(codec)


def manifest_value(value):
    """The decoded value as the manifest records it."""
    return value[1]


def sql_literal(data):
    return "X'" + data.hex().upper() + "'"


def insert_statements():
    lines = []
    for collection, key, obj, metadata in ROWS:
        meta = sql_literal(encode(metadata)) if metadata else "NULL"
        lines.append(
            'INSERT INTO "database2" ("collection", "key", "data", "metadata") VALUES '
            f"('{collection}', '{key}', {sql_literal(encode(obj))}, {meta});"
        )
    return lines


def check_sql(sql):
    """Stops when the committed SQL does not hold exactly the rows this script describes."""
    for line in insert_statements():
        if line not in sql:
            fixturelib.fail("yapdatabase.sql does not match the rows in yapdatabase.py:\n  " + line)
    if f"VALUES ('', 'snapshot', {SNAPSHOT})" not in sql:
        fixturelib.fail("yapdatabase.sql does not set the snapshot to %d" % SNAPSHOT)


def expected_rows():
    rows = []
    for collection, key, obj, metadata in ROWS:
        row = {
            "collection": collection,
            "key": key,
            "object": manifest_value(obj),
            "objectBytesHex": encode(obj).hex(),
        }
        if metadata:
            row["metadata"] = manifest_value(metadata)
            row["metadataBytesHex"] = encode(metadata).hex()
        rows.append(row)
    return rows


def contents(page_size):
    return {"snapshot": SNAPSHOT, "pageSize": page_size, "rows": expected_rows()}


def shell_versions():
    """The sqlcipher shell's SQLite and SQLCipher versions."""
    sqlite = subprocess.run([SHELL, "-version"], capture_output=True, text=True, check=True).stdout.split()[0]
    cipher = subprocess.run(
        [SHELL, ":memory:"], input="PRAGMA key = 'probe';\nPRAGMA cipher_version;\n",
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    return sqlite, cipher


def run_shell(path, preamble, sql):
    full = os.path.join(fixturelib.FIXTURES, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    result = subprocess.run([SHELL, "-bail", full], input=preamble + sql, capture_output=True, text=True)
    if result.returncode != 0 or result.stderr:
        fixturelib.fail(f"sqlcipher failed on {path}: {result.stderr}")
    for suffix in ("-wal", "-shm"):
        if os.path.exists(full + suffix):
            fixturelib.fail(f"{path}{suffix} was left behind")
    count = subprocess.run(
        [SHELL, full], input=preamble + 'SELECT count(*) FROM "database2";\n', capture_output=True, text=True
    ).stdout.strip()
    if count != str(len(ROWS)):
        fixturelib.fail(f"{path}: expected {len(ROWS)} rows, the shell counts {count!r}")


def main():
    if "--print-sql" in sys.argv:
        print("\n".join(insert_statements()))
        return
    with open(SQL_PATH, encoding="utf-8") as handle:
        sql = handle.read()
    check_sql(sql)
    targets = [
        "yapdatabase/sqlcipher-3.4.1-passphrase.db",
        "yapdatabase/sqlcipher-3.4.1-raw-key-4096.db",
        "yapdatabase/plaintext.db",
    ]
    fixturelib.refuse_existing(targets)
    sqlite_version, cipher_version = shell_versions()

    def origin(method):
        return {
            "generator": GENERATOR,
            "generatorVersion": GENERATOR_VERSION,
            "writer": "sqlcipher shell (Debian sqlcipher package)",
            "writerVersion": f"SQLCipher {cipher_version} (SQLite {sqlite_version})",
            "sqlcipherVersion": cipher_version,
            "sqliteVersion": sqlite_version,
            "method": method,
        }

    entries = []
    passphrase_path = targets[0]
    run_shell(passphrase_path, f"PRAGMA key = '{PASSPHRASE}';\n", sql)
    v3 = {"pageSize": 1024, "kdfIterations": 64000, "useHMAC": True}
    entries.append({
        "path": passphrase_path,
        "type": "database",
        "origin": origin("yapdatabase.sql run by the sqlcipher shell after PRAGMA key = '<passphrase>' "
                         "(SQLCipher 3.x defaults: 1024-byte pages, 64,000 iterations, HMAC-SHA1)"),
        "key": {"kind": "passphrase", "passphrase": PASSPHRASE},
        "cipher": v3,
        "formatVersion": 3,
        "serializers": SERIALIZERS,
        "checks": [
            {"name": "contents", "expect": contents(1024)},
            {"name": "automatic page size", "cipher": {}, "expect": contents(1024)},
            {"name": "wrong passphrase", "key": {"kind": "passphrase", "passphrase": "wrong"},
             "expect": {"openError": {"code": "wrongKey"}}},
        ],
    })

    raw_path = targets[1]
    run_shell(raw_path, f"PRAGMA key = \"x'{RAW_KEY}'\";\nPRAGMA cipher_page_size = 4096;\n", sql)
    entries.append({
        "path": raw_path,
        "type": "database",
        "origin": origin("yapdatabase.sql run by the sqlcipher shell after PRAGMA key = \"x'<64 hex>'\" "
                         "(a raw key) and PRAGMA cipher_page_size = 4096"),
        "key": {"kind": "raw", "hex": RAW_KEY},
        "cipher": {"pageSize": 4096},
        "formatVersion": 3,
        "serializers": SERIALIZERS,
        "checks": [
            {"name": "contents", "expect": contents(4096)},
            {"name": "automatic page size", "cipher": {}, "expect": contents(4096)},
        ],
    })

    plain_path = targets[2]
    run_shell(plain_path, "", sql)
    entries.append({
        "path": plain_path,
        "type": "database",
        "origin": origin("yapdatabase.sql run by the sqlcipher shell without a key: an unencrypted "
                         "YapDatabase file (4096-byte pages)"),
        "key": {"kind": "none"},
        "formatVersion": 3,
        "serializers": SERIALIZERS,
        "checks": [
            {"name": "contents", "expect": contents(4096)},
            {"name": "a key for a plaintext file", "key": {"kind": "raw", "hex": RAW_KEY},
             "expect": {"openError": {"code": "notEncrypted"}}},
            {"name": "encrypt on import",
             "importPlaintext": {"key": {"kind": "raw", "hex": IMPORT_KEY}, "cipher": {"pageSize": 4096}},
             "expect": contents(4096)},
        ],
    })
    fixturelib.append_entries(entries)
    for entry in entries:
        print("wrote Fixtures/" + entry["path"])


if __name__ == "__main__":
    main()
