-- CofferSync server schema, version 1 (the contract: Sync/DESIGN.md).
--
-- The server stores only ciphertext, opaque row ids and bookkeeping. Every device logs in with
-- its own role; row-level security keeps each role inside its own space.
--
-- Apply it as the role that will own it: a role with CREATEROLE (the definer functions below
-- create device roles and make them NOLOGIN) and CREATE on the database, preferably not a
-- superuser (the definer functions run with the owner's rights):
--     coffer-sync init-server --admin-url postgres://coffer_admin@host:5432/coffer
-- or  psql --single-transaction -f coffer-sync.sql
-- Applying it again is safe: every statement is idempotent, and it refuses to touch a schema
-- recorded at another version.
--
-- Errors raised here use SQLSTATE class CS so that clients can tell them apart:
--   CS001 schema at another version (DETAIL: that version)
--   CS002 not a device of a space, or no such space
--   CS003 invalid argument
--   CS004 no such device in the caller's space
--
-- The client embeds this file (Sources/CofferSync/Server/ServerSchema.swift, kept equal by a
-- test) and splits it into statements (SQLScript.swift): keep function bodies in $fn$ quotes
-- and do not use E'' strings.

-- Two concurrent applications (two admins, a retried deploy) take turns.
SELECT pg_advisory_xact_lock(4242424201);

CREATE SCHEMA IF NOT EXISTS coffer_sync;

DO $fn$
DECLARE
    found_version text;
BEGIN
    IF to_regclass('coffer_sync.meta') IS NOT NULL THEN
        SELECT value INTO found_version FROM coffer_sync.meta WHERE key = 'schema_version';
        IF found_version IS DISTINCT FROM '1' AND found_version IS NOT NULL THEN
            RAISE EXCEPTION 'coffer_sync is at schema version %, this file is version 1', found_version
                USING ERRCODE = 'CS001', DETAIL = found_version;
        END IF;
    END IF;
END
$fn$;

-- The group every device role belongs to; privileges are granted to it, never to a device.
-- Roles are shared by all databases of a cluster: use one admin role per cluster.
DO $fn$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'coffer_sync_device') THEN
        CREATE ROLE coffer_sync_device NOLOGIN;
    END IF;
END
$fn$;

CREATE TABLE IF NOT EXISTS coffer_sync.meta (
    key text PRIMARY KEY,
    value text NOT NULL
);

CREATE TABLE IF NOT EXISTS coffer_sync.spaces (
    space_id uuid PRIMARY KEY,
    key_epoch integer NOT NULL CHECK (key_epoch >= 1),
    key_check bytea NOT NULL,
    last_seq bigint NOT NULL DEFAULT 0 CHECK (last_seq >= 0),
    -- LISTEN/NOTIFY channel names are identifiers, at most 63 bytes.
    channel text NOT NULL CHECK (channel ~ '^coffer_[0-9a-f]{1,56}$')
);

CREATE TABLE IF NOT EXISTS coffer_sync.devices (
    space_id uuid NOT NULL REFERENCES coffer_sync.spaces ON DELETE CASCADE,
    device_id uuid NOT NULL,
    role_name text NOT NULL UNIQUE,
    public_key bytea NOT NULL,
    revoked_at timestamptz,
    PRIMARY KEY (space_id, device_id)
);

CREATE TABLE IF NOT EXISTS coffer_sync.space_keys (
    space_id uuid NOT NULL,
    key_epoch integer NOT NULL,
    device_id uuid NOT NULL,
    sealed_key bytea NOT NULL,
    PRIMARY KEY (space_id, key_epoch, device_id),
    FOREIGN KEY (space_id, device_id) REFERENCES coffer_sync.devices ON DELETE CASCADE
);

CREATE TABLE IF NOT EXISTS coffer_sync.rows (
    space_id uuid NOT NULL REFERENCES coffer_sync.spaces ON DELETE CASCADE,
    row_id bytea NOT NULL CHECK (octet_length(row_id) = 32),
    version bigint NOT NULL CHECK (version >= 1),
    device_id uuid NOT NULL,
    deleted boolean NOT NULL,
    key_epoch integer NOT NULL,
    ciphertext bytea NOT NULL,
    seq bigint NOT NULL,
    PRIMARY KEY (space_id, row_id)
);

-- Pulls read `seq > cursor` in order; a push assigns each space's numbers from spaces.last_seq,
-- so they are unique within a space.
CREATE UNIQUE INDEX IF NOT EXISTS rows_space_seq ON coffer_sync.rows (space_id, seq);

-- Ciphertext does not compress: store it out of line without trying.
ALTER TABLE coffer_sync.rows ALTER COLUMN ciphertext SET STORAGE EXTERNAL;

-- A space's sequence numbers and key epochs only move forward, and an epoch by one step at a
-- time: a device (whose grants allow updating its space) cannot make pulls skip rows or reuse
-- sequence numbers by lowering them.
CREATE OR REPLACE FUNCTION coffer_sync.spaces_move_forward() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    IF NEW.last_seq < OLD.last_seq OR NEW.key_epoch NOT IN (OLD.key_epoch, OLD.key_epoch + 1) THEN
        RAISE EXCEPTION 'a space''s last_seq and key_epoch only move forward (the epoch one step at a time)'
            USING ERRCODE = 'CS003';
    END IF;
    RETURN NEW;
END
$fn$;

DROP TRIGGER IF EXISTS move_forward ON coffer_sync.spaces;
CREATE TRIGGER move_forward BEFORE UPDATE ON coffer_sync.spaces
    FOR EACH ROW EXECUTE FUNCTION coffer_sync.spaces_move_forward();

-- The space of the logged-in device, NULL for any other role or a revoked device. session_user,
-- not current_user: inside a SECURITY DEFINER function current_user is the owner.
CREATE OR REPLACE FUNCTION coffer_sync.my_space() RETURNS uuid
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT space_id FROM coffer_sync.devices WHERE role_name = session_user AND revoked_at IS NULL
$fn$;

-- What the logged-in role is, revoked or not, so that a client can tell "revoked" from
-- "not a device" without reading the devices table.
CREATE OR REPLACE FUNCTION coffer_sync.whoami()
    RETURNS TABLE (space_id uuid, device_id uuid, revoked boolean)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT d.space_id, d.device_id, d.revoked_at IS NOT NULL
    FROM coffer_sync.devices AS d WHERE d.role_name = session_user
$fn$;

-- Creates a device of a space: its devices row and its LOGIN role, a member of
-- coffer_sync_device. Only the owner runs it directly (the admin); devices reach it through
-- enroll_device. The password arrives as a SCRAM-SHA-256 verifier the client computed, so no
-- plaintext password reaches the server or its logs.
CREATE OR REPLACE FUNCTION coffer_sync.create_device(
    p_space uuid, p_device uuid, p_role text, p_verifier text, p_public_key bytea
) RETURNS void
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    IF p_space IS NULL OR NOT EXISTS (SELECT 1 FROM coffer_sync.spaces WHERE space_id = p_space) THEN
        RAISE EXCEPTION 'no such sync space' USING ERRCODE = 'CS002';
    END IF;
    IF p_device IS NULL THEN
        RAISE EXCEPTION 'a device id is required' USING ERRCODE = 'CS003';
    END IF;
    IF p_role IS NULL OR p_role !~ '^coffer_[a-z0-9_]{1,56}$' THEN
        RAISE EXCEPTION 'a device role name is coffer_ and 1 to 56 of a-z, 0-9 and _'
            USING ERRCODE = 'CS003';
    END IF;
    IF p_verifier IS NULL
        OR p_verifier !~ '^SCRAM-SHA-256[$][0-9]+:[A-Za-z0-9+/=]+[$][A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$' THEN
        RAISE EXCEPTION 'a device password is given as a SCRAM-SHA-256 verifier' USING ERRCODE = 'CS003';
    END IF;
    IF p_public_key IS NULL OR octet_length(p_public_key) = 0 THEN
        RAISE EXCEPTION 'a device public key is required' USING ERRCODE = 'CS003';
    END IF;
    -- The row first: a taken device id or role name fails before any role exists.
    INSERT INTO coffer_sync.devices (space_id, device_id, role_name, public_key)
    VALUES (p_space, p_device, p_role, p_public_key);
    EXECUTE format(
        'CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE INHERIT NOREPLICATION NOBYPASSRLS'
        ' PASSWORD %L IN ROLE coffer_sync_device',
        p_role, p_verifier);
END
$fn$;

-- Revokes a device of a space: marks it revoked (my_space() then returns NULL for it, so row
-- security hides everything from its open sessions), makes its role NOLOGIN, and drops the keys
-- sealed to it. Owner only; devices reach it through revoke_device.
CREATE OR REPLACE FUNCTION coffer_sync.revoke_device_in(p_space uuid, p_device uuid) RETURNS void
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    v_role text;
BEGIN
    SELECT role_name INTO v_role FROM coffer_sync.devices
    WHERE space_id = p_space AND device_id = p_device
    FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no such device in this sync space' USING ERRCODE = 'CS004';
    END IF;
    UPDATE coffer_sync.devices SET revoked_at = coalesce(revoked_at, now())
    WHERE space_id = p_space AND device_id = p_device;
    DELETE FROM coffer_sync.space_keys WHERE space_id = p_space AND device_id = p_device;
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = v_role) THEN
        EXECUTE format('ALTER ROLE %I NOLOGIN', v_role);
    END IF;
END
$fn$;

-- Lets a device enroll a new device into its own space (and only there).
CREATE OR REPLACE FUNCTION coffer_sync.enroll_device(
    p_device uuid, p_role text, p_verifier text, p_public_key bytea
) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    v_space uuid := coffer_sync.my_space();
BEGIN
    IF v_space IS NULL THEN
        RAISE EXCEPTION 'this role is not an enrolled device of a sync space' USING ERRCODE = 'CS002';
    END IF;
    PERFORM coffer_sync.create_device(v_space, p_device, p_role, p_verifier, p_public_key);
END
$fn$;

-- Lets a device revoke a device of its own space (and only there).
CREATE OR REPLACE FUNCTION coffer_sync.revoke_device(p_device uuid) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    v_space uuid := coffer_sync.my_space();
BEGIN
    IF v_space IS NULL THEN
        RAISE EXCEPTION 'this role is not an enrolled device of a sync space' USING ERRCODE = 'CS002';
    END IF;
    PERFORM coffer_sync.revoke_device_in(v_space, p_device);
END
$fn$;

-- Privileges: nothing for PUBLIC; the device group gets exactly what push, pull, rotation,
-- enrollment and revocation need, and row security narrows it to the device's own space.
REVOKE ALL ON SCHEMA coffer_sync FROM PUBLIC;
GRANT USAGE ON SCHEMA coffer_sync TO coffer_sync_device;

REVOKE ALL ON ALL TABLES IN SCHEMA coffer_sync FROM PUBLIC, coffer_sync_device;
GRANT SELECT ON coffer_sync.meta TO coffer_sync_device;
GRANT SELECT ON coffer_sync.spaces TO coffer_sync_device;
GRANT UPDATE (last_seq, key_epoch, key_check, channel) ON coffer_sync.spaces TO coffer_sync_device;
GRANT SELECT ON coffer_sync.devices TO coffer_sync_device;
GRANT SELECT, INSERT, DELETE ON coffer_sync.space_keys TO coffer_sync_device;
GRANT SELECT, INSERT, UPDATE, DELETE ON coffer_sync.rows TO coffer_sync_device;

REVOKE ALL ON ALL FUNCTIONS IN SCHEMA coffer_sync FROM PUBLIC, coffer_sync_device;
GRANT EXECUTE ON FUNCTION coffer_sync.my_space() TO coffer_sync_device;
GRANT EXECUTE ON FUNCTION coffer_sync.whoami() TO coffer_sync_device;
GRANT EXECUTE ON FUNCTION coffer_sync.enroll_device(uuid, text, text, bytea) TO coffer_sync_device;
GRANT EXECUTE ON FUNCTION coffer_sync.revoke_device(uuid) TO coffer_sync_device;

-- Row security on every table. The policies apply to every role but the owner (the admin);
-- (SELECT my_space()) is evaluated once per statement, not once per row.
ALTER TABLE coffer_sync.meta ENABLE ROW LEVEL SECURITY;
ALTER TABLE coffer_sync.spaces ENABLE ROW LEVEL SECURITY;
ALTER TABLE coffer_sync.devices ENABLE ROW LEVEL SECURITY;
ALTER TABLE coffer_sync.space_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE coffer_sync.rows ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS readable ON coffer_sync.meta;
CREATE POLICY readable ON coffer_sync.meta FOR SELECT USING (true);

DROP POLICY IF EXISTS own_space ON coffer_sync.spaces;
CREATE POLICY own_space ON coffer_sync.spaces
    USING (space_id = (SELECT coffer_sync.my_space()))
    WITH CHECK (space_id = (SELECT coffer_sync.my_space()));

DROP POLICY IF EXISTS own_space ON coffer_sync.devices;
CREATE POLICY own_space ON coffer_sync.devices FOR SELECT
    USING (space_id = (SELECT coffer_sync.my_space()));

DROP POLICY IF EXISTS own_space ON coffer_sync.space_keys;
CREATE POLICY own_space ON coffer_sync.space_keys
    USING (space_id = (SELECT coffer_sync.my_space()))
    WITH CHECK (space_id = (SELECT coffer_sync.my_space()));

DROP POLICY IF EXISTS own_space ON coffer_sync.rows;
CREATE POLICY own_space ON coffer_sync.rows
    USING (space_id = (SELECT coffer_sync.my_space()))
    WITH CHECK (space_id = (SELECT coffer_sync.my_space()));

INSERT INTO coffer_sync.meta (key, value) VALUES ('schema_version', '1')
ON CONFLICT (key) DO NOTHING;
