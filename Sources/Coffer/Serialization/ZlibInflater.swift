import CZlib
import Foundation

/// Owns one zlib inflate stream: the half of Coffer's zlib wrapper that refuses zip bombs.
///
/// Output grows in steps and never past the caller's limit, so a tiny blob that would expand
/// to gigabytes costs at most `limit` bytes of memory before it is refused.
final class ZlibInflater {
    private let stream: UnsafeMutablePointer<z_stream>

    private init(stream: UnsafeMutablePointer<z_stream>) {
        self.stream = stream
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Starts a zlib-format inflate stream.
    ///
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/inflateFailed``
    ///   when zlib cannot set up a stream.
    static func make() throws(SerializationError) -> ZlibInflater {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = inflateInit_(stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw SerializationError(
                .inflateFailed, stage: "zlib", reason: "inflate setup failed (zlib status \(status))")
        }
        return ZlibInflater(stream: stream)
    }

    /// How one call to `decompress` ended.
    private enum Outcome {
        case complete, overLimit, truncated, trailingBytes, failed(Int32)
    }

    /// Inflates one complete zlib stream, producing at most `limit` bytes.
    ///
    /// - Parameters:
    ///   - input: A whole zlib stream, nothing before or after it.
    ///   - limit: The most bytes the output may hold.
    ///   - expectedLength: The length the caller expects, used to size the output at once.
    /// - Returns: The inflated bytes.
    /// - Throws: ``SerializationError`` with code
    ///   ``SerializationError/Code/decompressionLimitExceeded`` when the stream holds more than
    ///   `limit` bytes (it stops there), or ``SerializationError/Code/inflateFailed`` when the
    ///   input is not a complete zlib stream or has bytes after its end.
    /// - Complexity: O(output length); memory grows with the output and stops at `limit`
    ///   (exactly `expectedLength` when that is given).
    func decompress(_ input: Data, limit: Int, expectedLength: Int? = nil) throws(SerializationError) -> Data {
        guard input.count <= Int(UInt32.max) else {
            throw SerializationError(
                .inflateFailed, stage: "zlib", reason: "input of \(input.count) bytes is too large")
        }
        var output = Data()
        let firstChunk = min(limit, expectedLength ?? max(input.count * 4, 1 << 12))
        output.reserveCapacity(firstChunk)
        var outcome = Outcome.complete
        input.withUnsafeBytes { (source: UnsafeRawBufferPointer) in
            stream.pointee.next_in = UnsafeMutablePointer(
                mutating: source.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.pointee.avail_in = UInt32(source.count)
            outcome = run(into: &output, limit: limit, firstChunk: firstChunk)
        }
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        switch outcome {
        case .complete:
            return output
        case .overLimit:
            throw SerializationError(
                .decompressionLimitExceeded, stage: "zlib", reason: "inflated data exceeds the \(limit)-byte limit")
        case .truncated:
            throw SerializationError(.inflateFailed, stage: "zlib", reason: "compressed data ends early")
        case .trailingBytes:
            throw SerializationError(
                .inflateFailed, stage: "zlib", reason: "bytes follow the end of the compressed data")
        case .failed(let status):
            throw SerializationError(
                .inflateFailed, stage: "zlib", reason: "compressed data is invalid (zlib status \(status))")
        }
    }

    /// The inflate loop; `next_in`/`avail_in` are set by the caller.
    private func run(into output: inout Data, limit: Int, firstChunk: Int) -> Outcome {
        var status = Z_OK
        while true {
            let room = limit - output.count
            if room == 0 {
                // Full: one more byte of output, or a stream that still does not end, is too much.
                var probe: UInt8 = 0
                status = withUnsafeMutablePointer(to: &probe) { pointer in
                    stream.pointee.next_out = pointer
                    stream.pointee.avail_out = 1
                    return inflate(stream, Z_NO_FLUSH)
                }
                if stream.pointee.avail_out == 0 { return .overLimit }
            } else {
                let chunk = output.isEmpty ? max(1, min(room, firstChunk)) : min(room, max(output.count, 1 << 14))
                let start = output.count
                output.count = start + chunk
                status = output.withUnsafeMutableBytes { (target: UnsafeMutableRawBufferPointer) in
                    stream.pointee.next_out = target.baseAddress?.advanced(by: start).assumingMemoryBound(
                        to: Bytef.self)
                    stream.pointee.avail_out = UInt32(chunk)
                    return inflate(stream, Z_NO_FLUSH)
                }
                output.count = start + chunk - Int(stream.pointee.avail_out)
            }
            switch status {
            case Z_STREAM_END:
                return stream.pointee.avail_in == 0 ? .complete : .trailingBytes
            case Z_OK:
                continue
            case Z_BUF_ERROR:
                // No progress with room to write means the input ran out before the stream ended.
                if stream.pointee.avail_out > 0 { return .truncated }
            default:
                return .failed(status)
            }
        }
    }
}
