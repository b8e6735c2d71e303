import CZlib
import Foundation

/// Owns one zlib deflate stream: the streaming half of Coffer's small zlib wrapper.
///
/// The `z_stream` lives at a fixed heap address because zlib's state points back at it.
/// A deflater is used by one thread at a time and released as soon as a blob is built.
final class ZlibDeflater {
    private let stream: UnsafeMutablePointer<z_stream>

    private init(stream: UnsafeMutablePointer<z_stream>) {
        self.stream = stream
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Starts a zlib-format deflate stream.
    ///
    /// - Parameters:
    ///   - level: 0…9, or -1 for zlib's default (6).
    ///   - windowBits: 9…15; a window no larger than the input compresses just as well and
    ///     costs far less memory to set up.
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/invalidConfiguration``
    ///   for a level zlib rejects, or ``SerializationError/Code/compressionFailed``.
    static func make(level: Int32, windowBits: Int32 = MAX_WBITS) throws(SerializationError) -> ZlibDeflater {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = deflateInit2_(
            stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
            Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            let code: SerializationError.Code = status == Z_STREAM_ERROR ? .invalidConfiguration : .compressionFailed
            throw SerializationError(code, stage: "zlib", reason: "deflate setup failed (zlib status \(status))")
        }
        return ZlibDeflater(stream: stream)
    }

    /// The smallest window that holds `count` bytes, within zlib's 9…15 range.
    static func windowBits(forInputCount count: Int) -> Int32 {
        var bits: Int32 = 9
        while bits < MAX_WBITS && (1 << bits) < count { bits += 1 }
        return bits
    }

    /// Feeds `input` to the stream and appends what it produces to `output`, never letting
    /// `output` grow beyond `limit` bytes.
    ///
    /// - Parameters:
    ///   - input: The next piece of uncompressed bytes.
    ///   - finish: `true` for the last piece; the stream is then complete.
    ///   - output: Receives compressed bytes.
    ///   - limit: The most bytes `output` may hold.
    /// - Returns: `false` when the compressed bytes would not fit in `limit`; the stream is
    ///   then unusable.
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/compressionFailed``.
    /// - Complexity: O(input length).
    func compress(_ input: Data, finish: Bool, into output: inout Data, limit: Int) throws(SerializationError) -> Bool {
        guard input.count <= Int(UInt32.max) else {
            throw SerializationError(
                .compressionFailed, stage: "zlib", reason: "input of \(input.count) bytes is too large")
        }
        let flush = finish ? Z_FINISH : Z_NO_FLUSH
        var result = (status: Z_OK, fits: true)
        input.withUnsafeBytes { (source: UnsafeRawBufferPointer) in
            stream.pointee.next_in = UnsafeMutablePointer(
                mutating: source.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.pointee.avail_in = UInt32(source.count)
            result = run(into: &output, limit: limit, flush: flush)
        }
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        guard result.fits else { return false }
        guard result.status == Z_OK || result.status == Z_STREAM_END else {
            throw SerializationError(
                .compressionFailed, stage: "zlib", reason: "deflate failed (zlib status \(result.status))")
        }
        return true
    }

    /// The deflate loop; `next_in`/`avail_in` are set by the caller.
    private func run(into output: inout Data, limit: Int, flush: Int32) -> (status: Int32, fits: Bool) {
        while true {
            let room = limit - output.count
            guard room > 0 else { return (Z_OK, false) }
            let chunk = min(room, 1 << 16)
            let start = output.count
            output.count = start + chunk
            let status = output.withUnsafeMutableBytes { (target: UnsafeMutableRawBufferPointer) in
                stream.pointee.next_out = target.baseAddress?.advanced(by: start).assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = UInt32(chunk)
                return deflate(stream, flush)
            }
            let unused = Int(stream.pointee.avail_out)
            output.count = start + chunk - unused
            switch status {
            case Z_STREAM_END:
                return (status, true)
            case Z_OK, Z_BUF_ERROR:
                // Without Z_FINISH, a call is done once all input is taken and output had room.
                if flush != Z_FINISH && stream.pointee.avail_in == 0 && unused > 0 { return (Z_OK, true) }
                if status == Z_BUF_ERROR && unused > 0 { return (status, true) }
            default:
                return (status, true)
            }
        }
    }
}
