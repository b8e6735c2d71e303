import Foundation

/// A list of byte strings stored back to back in one buffer, the form the C baseline reads without copying.
struct PackedStrings: Sendable {
    /// All strings concatenated.
    private(set) var bytes: [UInt8] = []
    /// Start offsets into `bytes`, plus the end offset: string `i` is `bytes[offsets[i] ..< offsets[i + 1]]`.
    private(set) var offsets: [Int64] = [0]

    /// Creates an empty list.
    init() {}

    /// The number of strings.
    var count: Int { offsets.count - 1 }

    /// The total number of bytes of all strings.
    var totalBytes: Int { bytes.count }

    /// Appends one string.
    /// - Complexity: amortised O(`item.count`).
    mutating func append(_ item: some Collection<UInt8>) {
        bytes.append(contentsOf: item)
        offsets.append(Int64(bytes.count))
    }

    /// Appends the UTF-8 bytes of `string`.
    mutating func append(_ string: String) {
        append(Array(string.utf8))
    }

    /// The bytes of string `index` (which must be in `0 ..< count`).
    func item(at index: Int) -> ArraySlice<UInt8> {
        bytes[Int(offsets[index])..<Int(offsets[index + 1])]
    }

    /// Every string as its own `Data`, the form a store that takes `Data` values is handed.
    /// - Complexity: O(`totalBytes`); copies every string.
    func dataArray() -> [Data] {
        (0..<count).map { Data(item(at: $0)) }
    }
}
