import CCairo

/// Owns one `cairo_surface_t`: an in-memory ARGB32 image (encoded as PNG on request), or an SVG
/// or PDF document written into memory. Created in `init` (status checked with
/// `cairo_surface_status`), destroyed in `deinit`.
///
/// Nothing is written to disk here: callers get the bytes (``pngBytes()``, ``finish()``) and
/// write them atomically, only when they differ from what is already there. Not `Sendable`: one
/// thread at a time, as Cairo needs.
final class CairoSurface {
    enum Kind: Equatable {
        case image
        case svg
        case pdf
    }

    /// Collects what a vector surface or the PNG encoder writes; reached from Cairo's C callback
    /// through its user-data pointer (no globals).
    private final class ByteSink {
        var bytes: [UInt8] = []
    }

    /// `cairo_write_func_t`: appends to the ``ByteSink`` passed as closure.
    private static let append: cairo_write_func_t = { closure, data, length in
        guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
        let sink = Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue()
        sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
        return CAIRO_STATUS_SUCCESS
    }

    let handle: OpaquePointer
    let kind: Kind
    let width: Double
    let height: Double
    /// Kept alive as long as the surface, which may write into it until it is finished.
    private let sink = ByteSink()
    private var finished = false

    /// - Parameters:
    ///   - width, height: pixels (SVG documents are sized in px, PDF pages in points, 1 px = 1 pt).
    ///   - pdfCreationDate: the PDF `/CreationDate` instead of the current time, so two runs
    ///     write identical bytes.
    init(_ kind: Kind, width: Double, height: Double, pdfCreationDate: String = "2000-01-01T00:00:00Z")
        throws(CairoError)
    {
        let closure = Unmanaged.passUnretained(sink).toOpaque()
        let surface: OpaquePointer?
        switch kind {
        case .image:
            surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
        case .svg:
            surface = cairo_svg_surface_create_for_stream(Self.append, closure, width, height)
        case .pdf:
            surface = cairo_pdf_surface_create_for_stream(Self.append, closure, width, height)
        }
        // Cairo never returns NULL: a failure is an "error surface" carrying a status.
        guard let surface else { throw .status(operation: "surface create", message: "NULL") }
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw CairoError("surface create (\(kind), \(Int(width))×\(Int(height)))", status)
        }
        handle = surface
        self.kind = kind
        self.width = width
        self.height = height
        switch kind {
        case .svg:
            cairo_svg_surface_restrict_to_version(surface, CAIRO_SVG_VERSION_1_2)
            // width="1600px" rather than cairo's default "1600pt", which browsers show 4/3 larger.
            cairo_svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_PX)
        case .pdf:
            cairo_pdf_surface_restrict_to_version(surface, CAIRO_PDF_VERSION_1_5)
            cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, pdfCreationDate)
            cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "RegionSearch")
        case .image:
            break
        }
    }

    /// Decodes a PNG into an image surface (`cairo_image_surface_create_from_png_stream`): how the
    /// tests read back what was written, and Chromium's screenshots.
    init(png: [UInt8]) throws(CairoError) {
        let source = ByteSource(png)
        let surface = cairo_image_surface_create_from_png_stream(
            { closure, data, length in
                guard let closure, let data else { return CAIRO_STATUS_READ_ERROR }
                let source = Unmanaged<ByteSource>.fromOpaque(closure).takeUnretainedValue()
                let n = Int(length)
                guard source.offset + n <= source.bytes.count else { return CAIRO_STATUS_READ_ERROR }
                source.bytes.withUnsafeBufferPointer { b in
                    data.update(from: b.baseAddress! + source.offset, count: n)
                }
                source.offset += n
                return CAIRO_STATUS_SUCCESS
            }, Unmanaged.passUnretained(source).toOpaque())
        guard let surface else { throw .status(operation: "read PNG", message: "NULL") }
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw CairoError("read PNG", status)
        }
        handle = surface
        kind = .image
        width = Double(cairo_image_surface_get_width(surface))
        height = Double(cairo_image_surface_get_height(surface))
        finished = true
    }

    private final class ByteSource {
        let bytes: [UInt8]
        var offset = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
    }

    deinit { cairo_surface_destroy(handle) }

    /// Checks `cairo_surface_status`.
    func check(_ operation: String) throws(CairoError) {
        let status = cairo_surface_status(handle)
        if status != CAIRO_STATUS_SUCCESS { throw CairoError(operation, status) }
    }

    /// Completes an SVG or PDF document (`cairo_surface_finish`) and returns its bytes.
    ///
    /// SVG ids that Cairo numbers from process-wide counters (`surface37`, `image12`) are
    /// renumbered in order of appearance, so the bytes do not depend on what the process drew
    /// before.
    func finish() throws(CairoError) -> [UInt8] {
        precondition(kind != .image, "finish() is for SVG and PDF surfaces")
        if !finished {
            finished = true
            cairo_surface_finish(handle)
            try check("finish \(kind)")
        }
        return kind == .svg ? SVGIdentifiers.renumbered(sink.bytes) : sink.bytes
    }

    /// The image encoded as PNG (`cairo_surface_write_to_png_stream`).
    func pngBytes() throws(CairoError) -> [UInt8] {
        precondition(kind == .image, "pngBytes() is for image surfaces")
        cairo_surface_flush(handle)
        let out = ByteSink()
        let status = cairo_surface_write_to_png_stream(handle, Self.append, Unmanaged.passUnretained(out).toOpaque())
        if status != CAIRO_STATUS_SUCCESS { throw CairoError("write PNG", status) }
        return withExtendedLifetime(out) { out.bytes }
    }

    /// Composites `sprite` (an image surface whose centre pixel is the dot's centre) OVER this
    /// image surface once per point, the sprite's centre on the pixel holding the point.
    ///
    /// What a million POI dots need: one small drawing made by Cairo and copied, instead of a path
    /// of a million arcs (which took 2 GB and 17 s). Centres snap to whole pixels (≤ 0.5 px off).
    /// Integer arithmetic on premultiplied ARGB32, so the result is the same on every machine.
    func stamp(_ sprite: CairoSurface, at points: [(x: Double, y: Double)]) {
        precondition(kind == .image && sprite.kind == .image)
        cairo_surface_flush(handle)
        cairo_surface_flush(sprite.handle)
        guard let dst = cairo_image_surface_get_data(handle), let src = cairo_image_surface_get_data(sprite.handle)
        else { return }
        let (w, h) = (Int(width), Int(height))
        let (sw, sh) = (Int(sprite.width), Int(sprite.height))
        let dstStride = Int(cairo_image_surface_get_stride(handle)) / 4
        let srcStride = Int(cairo_image_surface_get_stride(sprite.handle)) / 4
        let (cx, cy) = (sw / 2, sh / 2)
        dst.withMemoryRebound(to: UInt32.self, capacity: dstStride * h) { d in
            src.withMemoryRebound(to: UInt32.self, capacity: srcStride * sh) { s in
                for p in points {
                    guard p.x.isFinite, p.y.isFinite else { continue }
                    let ox = Int(p.x.rounded(.down)) - cx
                    let oy = Int(p.y.rounded(.down)) - cy
                    guard ox + sw > 0, oy + sh > 0, ox < w, oy < h else { continue }
                    for j in max(0, -oy)..<min(sh, h - oy) {
                        let srcRow = s + j * srcStride
                        let dstRow = d + (oy + j) * dstStride + ox
                        for i in max(0, -ox)..<min(sw, w - ox) {
                            let sp = srcRow[i]
                            let sa = sp >> 24
                            if sa == 0 { continue }
                            if sa == 255 {
                                dstRow[i] = sp
                                continue
                            }
                            let dp = dstRow[i]
                            let k = 255 - sa
                            // Premultiplied OVER, per channel: s + d·(1 − αs).
                            let b = min(255, (sp & 0xff) + ((dp & 0xff) * k + 127) / 255)
                            let g = min(255, (sp >> 8 & 0xff) + ((dp >> 8 & 0xff) * k + 127) / 255)
                            let r = min(255, (sp >> 16 & 0xff) + ((dp >> 16 & 0xff) * k + 127) / 255)
                            let a = min(255, sa + ((dp >> 24) * k + 127) / 255)
                            dstRow[i] = a << 24 | r << 16 | g << 8 | b
                        }
                    }
                }
            }
        }
        cairo_surface_mark_dirty(handle)
    }

    /// The pixel at (x, y) of an image surface as straight (not premultiplied) RGBA bytes.
    func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        precondition(kind == .image)
        cairo_surface_flush(handle)
        let stride = Int(cairo_image_surface_get_stride(handle))
        guard let data = cairo_image_surface_get_data(handle), x >= 0, y >= 0, x < Int(width), y < Int(height)
        else { return (0, 0, 0, 0) }
        // ARGB32 is a native-endian 32-bit word with premultiplied alpha; RGB24 (an opaque PNG
        // read back) leaves the top byte unused.
        let word = data.advanced(by: y * stride + 4 * x).withMemoryRebound(to: UInt32.self, capacity: 1) { $0.pointee }
        let a = cairo_image_surface_get_format(handle) == CAIRO_FORMAT_RGB24 ? 255 : UInt32(word >> 24 & 0xff)
        func straight(_ c: UInt32) -> UInt8 { a == 0 ? 0 : UInt8(min(255, (c * 255 + a / 2) / a)) }
        return (straight(word >> 16 & 0xff), straight(word >> 8 & 0xff), straight(word & 0xff), UInt8(a))
    }
}
