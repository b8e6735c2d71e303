public import Foundation

/// An envelope key file: one random 256-bit ``DataKey`` wrapped under one or more passphrases,
/// each in its own slot, like LUKS key slots.
///
/// The database is encrypted with the data key, used by SQLCipher as a raw key; the key file
/// stores that key only in wrapped form. Each slot derives a wrapping key from its passphrase
/// with scrypt or PBKDF2-SHA256 (see ``KDFParameters``) and seals the data key with AES-256-GCM.
/// So:
/// - changing a passphrase rewraps one slot: its cost is two key derivations — one to unwrap the
///   data key with the old passphrase, one to wrap it under the new — whatever the size of the
///   database (see ``changingPassphrase(from:to:parameters:)``);
/// - several passphrases (for example a recovery key) each unlock the same data key;
/// - a wrong passphrase is told apart from a damaged file (see "Errors" below).
///
/// `KeyFile` itself is a value: the operations that change it return a new value and touch no
/// disk; ``read(from:)``, ``write(to:)`` and ``create(at:passphrase:label:parameters:)`` do the I/O,
/// and ``write(to:)`` replaces the file atomically (temporary file, `fsync`, `rename`, `fsync` of
/// the directory) with mode `0600`. The format is described in `KEYFILE-FORMAT.md` next to this file.
///
/// ```swift
/// let (keyFile, dataKey) = try KeyFile.create(at: url, passphrase: Array("correct horse".utf8))
/// // later
/// let key = try KeyFile.read(from: url).unwrap(passphrase: typedPassphraseBytes)
/// ```
///
/// ## Errors
/// Every throwing API throws ``KeyFileError``. A file whose bytes were corrupted fails its
/// SHA-256 checksum and is `damaged`; if the checksum was forged but a slot's ciphertext or tag
/// was changed, the slot's passphrase check still matches while its AES-GCM seal fails, which is
/// also `damaged`. Only when no slot's passphrase check matches is the result `wrongPassphrase`.
/// What cannot be told apart: a forged file whose passphrase checks were replaced looks like a
/// wrong passphrase — but it can never yield a wrong data key.
public struct KeyFile: Sendable, Hashable, CustomStringConvertible {
    /// The format version this library writes; it reads this version only.
    public static let formatVersion = 1
    /// The most slots one file may hold.
    public static let maximumSlotCount = 16
    /// The longest slot label, in UTF-8 bytes.
    public static let maximumLabelLength = 64
    /// The label ``create(at:passphrase:label:parameters:)`` gives the first slot by default.
    public static let defaultLabel = "primary"

    /// Identifies the wrapped data key: derived from the key (a one-way commitment, safe to show)
    /// and bound into every slot, so slots cannot be moved between key files.
    let keyID: [UInt8]
    /// The slots, in file order.
    public private(set) var slots: [Slot]

    /// Assembles a key file from parsed or freshly sealed parts.
    init(keyID: [UInt8], slots: [Slot]) {
        self.keyID = keyID
        self.slots = slots
    }

    /// Creates a key file in memory that wraps `dataKey` under one passphrase; nothing is written.
    ///
    /// Use it to wrap a key you already have, for example a new key after a data-key rotation.
    ///
    /// - Throws: `invalidArgument` for an empty passphrase, a bad label or parameters out of range;
    ///   `cryptoFailure` if derivation or sealing fails.
    /// - Complexity: One key derivation.
    public init(
        wrapping dataKey: DataKey, passphrase: some DataProtocol, label: String = KeyFile.defaultLabel,
        parameters: KDFParameters = .default
    ) throws(KeyFileError) {
        let keyID = Self.keyID(for: dataKey)
        let slot = try Slot.seal(
            dataKey, keyID: keyID, label: label, parameters: parameters, passphrase: passphrase)
        self.init(keyID: keyID, slots: [slot])
    }

    /// A hex string naming the wrapped data key, the same in every copy and after passphrase changes.
    public var keyIdentifier: String {
        keyID.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    /// The labels of the slots, in file order.
    public var slotLabels: [String] { slots.map(\.label) }

    /// `KeyFile(v1, key 0a1b…, slots: primary, recovery)`.
    public var description: String {
        "KeyFile(v\(Self.formatVersion), key \(keyIdentifier), slots: \(slotLabels.joined(separator: ", ")))"
    }

    /// Unlocks the data key with `passphrase`, trying every slot.
    ///
    /// - Throws: `wrongPassphrase` when no slot accepts the passphrase; `damaged` when a slot
    ///   accepts it but its wrapped key fails to open; `invalidArgument` for an empty passphrase.
    /// - Complexity: One key derivation per slot tried (all of them when the passphrase is wrong).
    public func unwrap(passphrase: some DataProtocol) throws(KeyFileError) -> DataKey {
        try unlock(passphrase: passphrase).key
    }

    /// Returns a copy whose slot for `oldPassphrase` is rewrapped under `newPassphrase`.
    ///
    /// The slot keeps its label; it gets a fresh salt and nonce, and `parameters` when given
    /// (otherwise its current ones). The data key does not change, so the database is untouched.
    ///
    /// - Throws: `wrongPassphrase` / `damaged` as ``unwrap(passphrase:)``; `invalidArgument` for an
    ///   empty new passphrase or bad parameters.
    /// - Complexity: One key derivation per slot tried to find the old passphrase's slot (slots are
    ///   tried in file order), plus one for the new wrap: two for a file with one slot. The data key
    ///   can only be re-sealed after it was unwrapped, so neither can be skipped. With the default
    ///   scrypt parameters (N = 2^15, r = 8, p = 1) each derivation takes tens of milliseconds in a
    ///   release build, and `coffer passwd` on a one-slot file takes about 0.13 s in all on the
    ///   benchmark machine (BENCHMARKS.md). Independent of the database size.
    public func changingPassphrase(
        from oldPassphrase: some DataProtocol, to newPassphrase: some DataProtocol,
        parameters: KDFParameters? = nil
    ) throws(KeyFileError) -> KeyFile {
        let (key, index) = try unlock(passphrase: oldPassphrase)
        let old = slots[index]
        var copy = self
        copy.slots[index] = try Slot.seal(
            key, keyID: keyID, label: old.label, parameters: parameters ?? old.parameters,
            passphrase: newPassphrase)
        return copy
    }

    /// Returns a copy with a new slot that unlocks the same data key with `newPassphrase`.
    ///
    /// - Parameters:
    ///   - label: The new slot's name, for example `"recovery"`; unique, 1 to 64 UTF-8 bytes.
    ///   - newPassphrase: The passphrase of the new slot.
    ///   - parameters: The new slot's key derivation.
    ///   - existingPassphrase: A passphrase of any existing slot, to unlock the data key.
    /// - Throws: `slotExists`, `invalidArgument` (label, passphrase, parameters, or the file is
    ///   full), and the errors of ``unwrap(passphrase:)``.
    /// - Complexity: The key derivations of an unwrap plus one.
    public func addingSlot(
        label: String, passphrase newPassphrase: some DataProtocol, parameters: KDFParameters = .default,
        unlockingWith existingPassphrase: some DataProtocol
    ) throws(KeyFileError) -> KeyFile {
        try checkRoomForSlot(label: label)
        let key = try unwrap(passphrase: existingPassphrase)
        return try addingSlot(label: label, passphrase: newPassphrase, parameters: parameters, dataKey: key)
    }

    /// Returns a copy with a new slot for `newPassphrase`, given the data key already unlocked.
    ///
    /// - Throws: `keyMismatch` when `dataKey` is not the key this file wraps; `slotExists`;
    ///   `invalidArgument` (label, passphrase, parameters, or the file is full).
    /// - Complexity: One key derivation.
    public func addingSlot(
        label: String, passphrase newPassphrase: some DataProtocol, parameters: KDFParameters = .default,
        dataKey: DataKey
    ) throws(KeyFileError) -> KeyFile {
        try checkRoomForSlot(label: label)
        guard Self.constantTimeEquals(Self.keyID(for: dataKey), keyID) else {
            throw KeyFileError(.keyMismatch, reason: "the data key is not the one this key file wraps")
        }
        var copy = self
        copy.slots.append(
            try Slot.seal(dataKey, keyID: keyID, label: label, parameters: parameters, passphrase: newPassphrase))
        return copy
    }

    /// Returns a copy without the slot named `label`.
    ///
    /// No passphrase is needed: removing a slot cannot reveal the key. Remove a slot only after
    /// checking that another one opens.
    ///
    /// - Throws: `slotNotFound`, or `lastSlot` when it is the only slot.
    /// - Complexity: O(number of slots).
    public func removingSlot(label: String) throws(KeyFileError) -> KeyFile {
        guard let index = slots.firstIndex(where: { $0.label == label }) else {
            throw KeyFileError(.slotNotFound, reason: "no slot is labelled \"\(label)\"")
        }
        guard slots.count > 1 else {
            throw KeyFileError(.lastSlot, reason: "refusing to remove the last slot")
        }
        var copy = self
        copy.slots.remove(at: index)
        return copy
    }

    /// Finds the slot `passphrase` opens and returns the key with the slot's index.
    func unlock(passphrase: some DataProtocol) throws(KeyFileError) -> (key: DataKey, slot: Int) {
        for (index, slot) in slots.enumerated() {
            guard let key = try slot.open(passphrase: passphrase, keyID: keyID) else { continue }
            guard Self.constantTimeEquals(Self.keyID(for: key), keyID) else {
                throw KeyFileError(.damaged, reason: "slot \"\(slot.label)\" holds a key of another key file")
            }
            return (key, index)
        }
        throw KeyFileError(.wrongPassphrase, reason: "the passphrase opens no slot")
    }

    /// Throws unless a slot named `label` could be added.
    private func checkRoomForSlot(label: String) throws(KeyFileError) {
        if let failure = Self.labelFailure(label) {
            throw KeyFileError(.invalidArgument, reason: failure)
        }
        guard !slots.contains(where: { $0.label == label }) else {
            throw KeyFileError(.slotExists, reason: "a slot is already labelled \"\(label)\"")
        }
        guard slots.count < Self.maximumSlotCount else {
            throw KeyFileError(.invalidArgument, reason: "a key file holds at most \(Self.maximumSlotCount) slots")
        }
    }

    /// Why `label` is not a valid slot label, or `nil` if it is.
    static func labelFailure(_ label: String) -> String? {
        guard (1...maximumLabelLength).contains(label.utf8.count) else {
            return "a slot label must be 1 to \(maximumLabelLength) UTF-8 bytes"
        }
        return nil
    }
}

extension String {
    /// Pads with leading zeros to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
