import CZlib
import RegionSearchCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why an input file could not be read at all (as opposed to one bad record in it).
enum InputError: Error, CustomStringConvertible, ExitCoded {
    case cannotOpen(path: String, reason: String)
    case readFailed(path: String, reason: String)
    case corruptCompression(path: String, offset: UInt64, reason: String)
    case unsupported(path: String, reason: String)
    case changedWhileRead(path: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            return "\(path): cannot open input: \(reason); check the path and that it is a readable file"
        case .readFailed(let path, let reason): return "\(path): read failed: \(reason)"
        case .corruptCompression(let path, let offset, let reason):
            return
                "\(path): gzip data is damaged near compressed byte \(offset) (\(reason)); re-download or "
                + "re-compress the file"
        case .unsupported(let path, let reason): return "\(path): \(reason)"
        case .changedWhileRead(let path):
            return
                "\(path): the file changed while it was read (its size, times or inode differ from when it was "
                + "opened), so its POIs were not kept; run again once it is complete (write it under another name "
                + "and rename it into place)"
        }
    }

    /// 1 for a file that changed while it was read (processing failed; the same file later
    /// reads), 3 for input that cannot be read as it is.
    public var exitStatus: ExitStatus {
        if case .changedWhileRead = self { return .failure }
        return .inputData
    }
}

/// Sequential reader over a file that may be gzip-compressed (detected by its magic bytes, not
/// its name). Concatenated gzip members are read one after another, as `gzip -d` does.
public final class ByteReader {
    public let path: String
    private let fd: Int32
    public let isGzip: Bool
    private var stream = z_stream()
    private var inflating = false
    private var input: UnsafeMutablePointer<UInt8>
    private static let inputSize = 1 << 18
    private var inputFill = 0
    private var inputPos = 0
    private var sawEOF = false
    /// Bytes read from the file (compressed bytes for gzip input).
    private(set) var fileBytesRead: UInt64 = 0
    /// Bytes delivered to the caller (decompressed).
    private(set) var bytesDelivered: UInt64 = 0
    /// Total size of the file on disk.
    public let fileSize: UInt64

    public init(path: String) throws {
        self.path = path
        // A named pipe nobody writes to had the open wait for ever (ReadOpening).
        switch ReadOpening.descriptor(path) {
        case .success(let opened): fd = opened
        case .failure(let failure): throw InputError.cannotOpen(path: path, reason: failure.reason)
        }
        var st = stat()
        fstat(fd, &st)
        if (st.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw InputError.cannotOpen(path: path, reason: "is a directory")
        }
        // A device never ends (/dev/zero) or is not a file of records; a pipe is fine here.
        let kind = st.st_mode & S_IFMT
        if kind == S_IFCHR || kind == S_IFBLK || kind == S_IFSOCK {
            close(fd)
            throw InputError.cannotOpen(path: path, reason: "is a device or socket, not a file of records")
        }
        fileSize = UInt64(max(0, st.st_size))
        input = .allocate(capacity: ByteReader.inputSize)
        // Peek at the magic bytes.
        var magic = [UInt8](repeating: 0, count: 2)
        let n = pread(fd, &magic, 2, 0)
        isGzip = n == 2 && magic[0] == 0x1F && magic[1] == 0x8B
        if isGzip {
            let rc = inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
            guard rc == Z_OK else {
                input.deallocate()
                close(fd)
                throw InputError.corruptCompression(path: path, offset: 0, reason: "inflateInit failed (\(rc))")
            }
            inflating = true
        }
    }

    deinit {
        if inflating { inflateEnd(&stream) }
        input.deallocate()
        close(fd)
    }

    private func refill() throws {
        if inputPos < inputFill || sawEOF { return }
        while true {
            let n = systemRead(fd, input, ByteReader.inputSize)
            if n < 0 {
                if errno == EINTR { continue }
                throw InputError.readFailed(path: path, reason: String(cString: strerror(errno)))
            }
            inputFill = n
            inputPos = 0
            fileBytesRead += UInt64(n)
            if n == 0 { sawEOF = true }
            return
        }
    }

    /// Reads up to `buffer.count` bytes; returns 0 only at the end of the data.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard buffer.count > 0 else { return 0 }
        if !isGzip {
            while true {
                let n = systemRead(fd, buffer.baseAddress, buffer.count)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw InputError.readFailed(path: path, reason: String(cString: strerror(errno)))
                }
                fileBytesRead += UInt64(n)
                bytesDelivered += UInt64(n)
                return n
            }
        }
        var produced = 0
        while produced == 0 {
            try refill()
            if inputPos >= inputFill {  // end of file
                if memberOpen {
                    throw InputError.corruptCompression(
                        path: path, offset: fileBytesRead, reason: "unexpected end of file")
                }
                return 0
            }
            stream.next_in = input + inputPos
            stream.avail_in = UInt32(inputFill - inputPos)
            stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            stream.avail_out = UInt32(buffer.count)
            let rc = inflate(&stream, Z_NO_FLUSH)
            let consumed = (inputFill - inputPos) - Int(stream.avail_in)
            inputPos += consumed
            produced = buffer.count - Int(stream.avail_out)
            if consumed > 0 { memberOpen = true }
            switch rc {
            case Z_OK, Z_BUF_ERROR:
                break
            case Z_STREAM_END:
                // Another gzip member may follow (as `cat a.gz b.gz` produces).
                memberOpen = false
                inflateReset(&stream)
            default:
                let msg = stream.msg.map { String(cString: $0) } ?? "zlib error \(rc)"
                throw InputError.corruptCompression(
                    path: path, offset: fileBytesRead - UInt64(inputFill - inputPos), reason: msg)
            }
        }
        bytesDelivered += UInt64(produced)
        return produced
    }

    /// Whether a gzip member has started but not yet ended.
    private var memberOpen = false

    /// Reads everything that remains (for small inputs and tests).
    public func readAll() throws -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = try chunk.withUnsafeMutableBytes { try read(into: $0) }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return out
    }
}

/// Inflates one zlib-wrapped buffer of known decompressed size (OSM PBF blobs).
func zlibInflate(_ data: UnsafeRawBufferPointer, expectedSize: Int) -> [UInt8]? {
    guard expectedSize >= 0, expectedSize <= 1 << 30 else { return nil }
    var out = [UInt8](repeating: 0, count: expectedSize)
    var destLen = uLongf(expectedSize)
    let rc = out.withUnsafeMutableBufferPointer { dst in
        uncompress(dst.baseAddress, &destLen, data.baseAddress?.assumingMemoryBound(to: UInt8.self), uLong(data.count))
    }
    guard rc == Z_OK, Int(destLen) == expectedSize else { return nil }
    return out
}

/// `read(2)`, named apart from ``ByteReader/read(into:)`` (the C library's module differs: Glibc on
/// Linux, Darwin on macOS).
@inline(__always)
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.read(fd, buffer, count)
    #else
        Darwin.read(fd, buffer, count)
    #endif
}
