public import Foundation

extension SerializerChain {
    /// Tells whether a stored blob should be rewritten to be encrypted under the current key.
    ///
    /// It is `true` when the blob is encrypted under a key id other than its keyring's current
    /// one, and also when this chain encrypts but the blob is not encrypted at all (a legacy or
    /// pre-encryption row): rewriting the row through the chain fixes both. It is `false` for a
    /// chain without encryption stages, for an encrypted blob while the keyring has no current
    /// key, and for a blob whose header cannot be read (reading it reports the error instead).
    /// The payload is not decrypted.
    ///
    /// A background job calls this for each row and rewrites the rows it selects; blobs it
    /// writes are encrypted under the current key, so they report `false`.
    ///
    /// - Parameter blob: A stored blob of this chain's column.
    /// - Complexity: O(number of header records); no decryption.
    public func needsReencryption(_ blob: Data) -> Bool {
        guard encrypts, configurationError == nil else { return false }
        guard BlobHeader.hasMagic(blob) else { return true }
        guard let header = try? BlobHeader(parsing: blob) else { return false }
        var encrypted = false
        for record in header.records {
            guard let stage = stage(withID: record.stageID), stage.kind == .encryption else { continue }
            encrypted = true
            if stage.needsReencryption(parameters: record.parameters) { return true }
        }
        return !encrypted
    }
}
