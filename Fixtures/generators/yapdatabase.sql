-- A YapDatabase database (schema version 3) with rows in the formats YapDatabase's serializers
-- write. Run by yapdatabase.py through the sqlcipher shell, after the key (if any):
--   { echo "PRAGMA key = '…';"; cat yapdatabase.sql; } | sqlcipher out.db
-- Blobs (decoded values are in yapdatabase.py, which checks these literals before running):
--   notes/*, ''/readme  JSON of a Codable Note {title, body, tags} (Swift JSONEncoder, sorted keys)
--   notes/* metadata    timestamp: 8-byte little-endian double, seconds since 2001-01-01 UTC
--   dates/*             timestamp, as above
--   settings/*          binary property list of Settings {theme, fontSize, sync, servers} (plistlib)
PRAGMA auto_vacuum = FULL;
PRAGMA journal_mode = WAL;
CREATE TABLE IF NOT EXISTS "yap2" ("extension" CHAR NOT NULL, "key" CHAR NOT NULL, "data" BLOB, PRIMARY KEY ("extension", "key"));
CREATE TABLE IF NOT EXISTS "database2" ("rowid" INTEGER PRIMARY KEY, "collection" CHAR NOT NULL, "key" CHAR NOT NULL, "data" BLOB, "metadata" BLOB);
CREATE UNIQUE INDEX IF NOT EXISTS "true_primary_key" ON "database2" ( "collection", "key" );
PRAGMA user_version = 3;
BEGIN TRANSACTION;
INSERT INTO "yap2" ("extension", "key", "data") VALUES ('', 'snapshot', 42);
INSERT INTO "database2" ("collection", "key", "data", "metadata") VALUES ('', 'readme', X'7B22626F6479223A2273746F72656420756E6465722074686520656D70747920636F6C6C656374696F6E222C2274616773223A5B5D2C227469746C65223A224E696C20636F6C6C656374696F6E227D', NULL);
INSERT INTO "database2" ("collection", "key", "data", "metadata") VALUES ('dates', 'epoch', X'00000040E427CDC1', NULL);
INSERT INTO "database2" ("collection", "key", "data", "metadata") VALUES ('dates', 'fraction', X'00008054346F9D41', NULL);
INSERT INTO "database2" ("collection", "key", "data", "metadata") VALUES ('dates', 'reference', X'0000000000000000', NULL);
INSERT INTO "database2" ("collection", "key", "data", "metadata") VALUES ('notes', 'n1', X'7B22626F6479223A224D696C6B2C2065676773222C2274616773223A5B22686F6D65225D2C227469746C65223A2247726F636572696573227D', X'0000208093DCC441');
INSERT INTO "database2" ("collection", "key", "data", "metadata") VALUES ('notes', 'n2', X'7B22626F6479223A22E697A5E69CACE8AA9EE381AEE38386E382ADE382B9E38388222C2274616773223A5B226931386E222C2274657374225D2C227469746C65223A22C39C6EC3AF63C3B664C3A920E29C93227D', X'00000000C01CC8C0');
INSERT INTO "database2" ("collection", "key", "data", "metadata") VALUES ('notes', 'n3', X'7B22626F6479223A22222C2274616773223A5B5D2C227469746C65223A224E6F206D65746164617461227D', NULL);
INSERT INTO "database2" ("collection", "key", "data", "metadata") VALUES ('notes', 'ключ', X'7B22626F6479223A22746865206B6579206973206E6F74204153434949222C2274616773223A5B5D2C227469746C65223A22556E69636F6465206B6579227D', NULL);
INSERT INTO "database2" ("collection", "key", "data", "metadata") VALUES ('settings', 'alt', X'62706C6973743030D4010203040506080958666F6E7453697A6557736572766572735473796E63557468656D65100FA1075F101073796E632E6578616D706C652E6F726709546461726B08111A22272D2F3144450000000000000101000000000000000A0000000000000000000000000000004A', NULL);
INSERT INTO "database2" ("collection", "key", "data", "metadata") VALUES ('settings', 'main', X'62706C6973743030D4010203040506070858666F6E7453697A6557736572766572735473796E63557468656D65100CA008556C6967687408111A22272D2F30310000000000000101000000000000000900000000000000000000000000000037', NULL);
COMMIT;
