#!/usr/bin/env python3
"""Writes YapDatabase-schema fixtures with SQLCipher 4 (the `sqlcipher3-binary` wheel from PyPI),
in the settings SQLCipher 3.4.1 can read, plus one in 4.x defaults that it cannot.

The wheel is installed into a temporary directory, never into the system or the repository:

    python3 Fixtures/generators/sqlcipher4.py

which runs `pip install --target "$(mktemp -d)" sqlcipher3-binary` itself (pass --target DIR to
reuse an existing installation). CI never runs this script: its output files are committed data.
The SQL and the expected rows are those of yapdatabase.sql / yapdatabase.py.

Refuses to run when a target file exists or the manifest names it: fixtures are never regenerated.
"""

import sys

sys.dont_write_bytecode = True  # keep generators/ free of __pycache__

import importlib
import os
import subprocess
import tempfile

import fixturelib
import yapdatabase

GENERATOR = "Fixtures/generators/sqlcipher4.py"
GENERATOR_VERSION = "1.0.0"
PACKAGE = "sqlcipher3-binary"
PASSPHRASE = "sqlcipher4 fixture passphrase"

TARGETS = {
    "compat": "sqlcipher4/compatibility-3-passphrase.db",
    "sha1": "sqlcipher4/sha1-4096-256000-passphrase.db",
    "v4": "sqlcipher4/v4-defaults-passphrase.db",
}


def load_module(target, install):
    """Installs the wheel into `target` (a temporary directory) and imports it from there."""
    if install:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--target", target, PACKAGE], check=True)
    sys.path.insert(0, target)
    module = importlib.import_module("sqlcipher3.dbapi2")
    from importlib import metadata

    version = None
    for dist in metadata.distributions(path=[target]):
        if dist.metadata["Name"].lower() == PACKAGE:
            version = dist.version
    return module, version or "unknown"


def write(module, path, pragmas):
    full = os.path.join(fixturelib.FIXTURES, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    connection = module.connect(full)
    connection.execute(f"PRAGMA key = '{PASSPHRASE}'")
    for pragma in pragmas:
        connection.execute(pragma)
    with open(yapdatabase.SQL_PATH, encoding="utf-8") as handle:
        connection.executescript(handle.read())
    connection.commit()
    count = connection.execute('SELECT count(*) FROM "database2"').fetchone()[0]
    connection.close()
    if count != len(yapdatabase.ROWS):
        fixturelib.fail(f"{path}: expected {len(yapdatabase.ROWS)} rows, found {count}")
    for suffix in ("-wal", "-shm"):
        if os.path.exists(full + suffix):
            fixturelib.fail(f"{path}{suffix} was left behind")


def main():
    if "--target" in sys.argv:
        generate(sys.argv[sys.argv.index("--target") + 1], install=False)
    else:
        with tempfile.TemporaryDirectory(prefix="sqlcipher3-binary-") as target:
            generate(target, install=True)


def generate(target, install):
    with open(yapdatabase.SQL_PATH, encoding="utf-8") as handle:
        yapdatabase.check_sql(handle.read())
    fixturelib.refuse_existing(TARGETS.values())
    module, package_version = load_module(target, install)
    probe = module.connect(":memory:")
    cipher_version = probe.execute("PRAGMA cipher_version").fetchone()[0]
    sqlite_version = probe.execute("SELECT sqlite_version()").fetchone()[0]
    probe.close()

    def origin(method):
        return {
            "generator": GENERATOR,
            "generatorVersion": GENERATOR_VERSION,
            "writer": f"{PACKAGE} (PyPI) {package_version}",
            "writerVersion": f"SQLCipher {cipher_version} (SQLite {sqlite_version})",
            "sqlcipherVersion": cipher_version,
            "sqliteVersion": sqlite_version,
            "method": method,
        }

    passphrase = {"kind": "passphrase", "passphrase": PASSPHRASE}
    wrong_key = {"openError": {"code": "wrongKey"}}
    entries = []

    write(module, TARGETS["compat"], ["PRAGMA cipher_compatibility = 3"])
    entries.append({
        "path": TARGETS["compat"],
        "type": "database",
        "origin": origin("yapdatabase.sql executed after PRAGMA key and PRAGMA cipher_compatibility = 3 "
                         "(SQLCipher 3.x format: 1024-byte pages, 64,000 PBKDF2-SHA1 iterations, HMAC-SHA1)"),
        "key": passphrase,
        "cipher": {"pageSize": 1024, "kdfIterations": 64000, "useHMAC": True},
        "formatVersion": 3,
        "serializers": yapdatabase.SERIALIZERS,
        "checks": [
            {"name": "contents", "expect": yapdatabase.contents(1024)},
            {"name": "automatic page size", "cipher": {}, "expect": yapdatabase.contents(1024)},
        ],
    })

    write(module, TARGETS["sha1"], [
        "PRAGMA cipher_hmac_algorithm = HMAC_SHA1",
        "PRAGMA cipher_kdf_algorithm = PBKDF2_HMAC_SHA1",
        "PRAGMA cipher_page_size = 4096",
        "PRAGMA kdf_iter = 256000",
    ])
    entries.append({
        "path": TARGETS["sha1"],
        "type": "database",
        "origin": origin("yapdatabase.sql executed after PRAGMA key, cipher_hmac_algorithm = HMAC_SHA1, "
                         "cipher_kdf_algorithm = PBKDF2_HMAC_SHA1, cipher_page_size = 4096, kdf_iter = 256000"),
        "key": passphrase,
        "cipher": {"pageSize": 4096, "kdfIterations": 256000, "useHMAC": True},
        "formatVersion": 3,
        "serializers": yapdatabase.SERIALIZERS,
        "checks": [
            {"name": "contents", "expect": yapdatabase.contents(4096)},
            {"name": "default iterations", "cipher": {"pageSize": 4096}, "expect": wrong_key},
        ],
    })

    write(module, TARGETS["v4"], [])
    entries.append({
        "path": TARGETS["v4"],
        "type": "database",
        "origin": origin("yapdatabase.sql executed after PRAGMA key only: SQLCipher 4.x defaults (4096-byte "
                         "pages, 256,000 PBKDF2-SHA512 iterations, HMAC-SHA512), a format SQLCipher 3.4.1 cannot read"),
        "key": passphrase,
        "cipher": {"pageSize": 4096, "kdfIterations": 256000, "useHMAC": True, "formatVersion": 4},
        "formatVersion": 3,
        "serializers": yapdatabase.SERIALIZERS,
        "checks": [
            {"name": "SQLCipher 4 settings on SQLCipher 3", "expect": {"openError": {"code": "unsupportedCipherSettings"}}},
            {"name": "closest SQLCipher 3 settings", "cipher": {"pageSize": 4096, "kdfIterations": 256000},
             "expect": wrong_key},
            {"name": "automatic settings", "cipher": {}, "expect": wrong_key},
        ],
    })
    fixturelib.append_entries(entries)
    for entry in entries:
        print("wrote Fixtures/" + entry["path"])


if __name__ == "__main__":
    main()
