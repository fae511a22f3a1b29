import CCairo

/// Owns one `cairo_t` drawing on a ``CairoSurface`` (kept alive by this object); destroyed in
/// `deinit`. Drawing calls record a sticky error in the context; ``check(_:)`` turns it into a
/// ``CairoError``.
final class CairoContext {
    let handle: OpaquePointer
    let surface: CairoSurface
    /// The font family of ``selectFont(size:bold:)``, resolved by fontconfig through Cairo's toy
    /// font API.
    let fontFamily: String

    init(_ surface: CairoSurface, fontFamily: String = MapStyle.fontFamily) throws(CairoError) {
        guard let cr = cairo_create(surface.handle) else { throw .status(operation: "cairo_create", message: "NULL") }
        let status = cairo_status(cr)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_destroy(cr)
            throw CairoError("cairo_create", status)
        }
        handle = cr
        self.surface = surface
        self.fontFamily = fontFamily
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
    }

    deinit { cairo_destroy(handle) }

    /// Checks `cairo_status` (sticky: the first error of any earlier call).
    func check(_ operation: String) throws(CairoError) {
        let status = cairo_status(handle)
        if status != CAIRO_STATUS_SUCCESS { throw CairoError(operation, status) }
    }

    func setColor(_ c: RGBA) { cairo_set_source_rgba(handle, c.r, c.g, c.b, c.a) }

    func save() { cairo_save(handle) }
    func restore() { cairo_restore(handle) }

    /// Restricts drawing to a rectangle until the matching ``restore()``.
    func clip(x: Double, y: Double, width: Double, height: Double) {
        cairo_new_path(handle)
        cairo_rectangle(handle, x, y, width, height)
        cairo_clip(handle)
    }

    /// Fills the whole surface (or the clip).
    func paint(_ c: RGBA) {
        setColor(c)
        cairo_paint(handle)
    }

    func fillRectangle(x: Double, y: Double, width: Double, height: Double, _ c: RGBA) {
        cairo_new_path(handle)
        cairo_rectangle(handle, x, y, width, height)
        setColor(c)
        cairo_fill(handle)
    }

    func strokeRectangle(x: Double, y: Double, width: Double, height: Double, _ c: RGBA, lineWidth: Double) {
        cairo_new_path(handle)
        cairo_rectangle(handle, x, y, width, height)
        setColor(c)
        cairo_set_line_width(handle, lineWidth)
        cairo_stroke(handle)
    }

    func line(from a: (x: Double, y: Double), to b: (x: Double, y: Double), _ c: RGBA, width: Double) {
        cairo_new_path(handle)
        cairo_move_to(handle, a.x, a.y)
        cairo_line_to(handle, b.x, b.y)
        setColor(c)
        cairo_set_line_width(handle, width)
        cairo_stroke(handle)
    }

    /// A polyline through the points (nil breaks the line).
    func polyline(_ points: [(x: Double, y: Double)?], _ c: RGBA, width: Double) {
        cairo_new_path(handle)
        var open = false
        for p in points {
            guard let p else {
                open = false
                continue
            }
            if open { cairo_line_to(handle, p.x, p.y) } else { cairo_move_to(handle, p.x, p.y) }
            open = true
        }
        setColor(c)
        cairo_set_line_width(handle, width)
        cairo_stroke(handle)
    }

    /// Fills the rings (exterior and holes, even-odd so holes stay empty) with `fill`, then
    /// strokes them with `stroke` of `lineWidth` (round joins).
    func polygon(_ rings: [[(x: Double, y: Double)]], fill: RGBA?, stroke: RGBA?, lineWidth: Double) {
        cairo_new_path(handle)
        for ring in rings where ring.count >= 3 {
            cairo_move_to(handle, ring[0].x, ring[0].y)
            for p in ring.dropFirst() { cairo_line_to(handle, p.x, p.y) }
            cairo_close_path(handle)
        }
        cairo_set_fill_rule(handle, CAIRO_FILL_RULE_EVEN_ODD)
        if let fill {
            setColor(fill)
            cairo_fill_preserve(handle)
        }
        if let stroke {
            setColor(stroke)
            cairo_set_line_width(handle, lineWidth)
            cairo_stroke_preserve(handle)
        }
        cairo_new_path(handle)
    }

    func circle(x: Double, y: Double, radius: Double, fill: RGBA?, stroke: RGBA?, lineWidth: Double = 1) {
        cairo_new_path(handle)
        cairo_arc(handle, x, y, radius, 0, 2 * Double.pi)
        if let fill {
            setColor(fill)
            cairo_fill_preserve(handle)
        }
        if let stroke {
            setColor(stroke)
            cairo_set_line_width(handle, lineWidth)
            cairo_stroke_preserve(handle)
        }
        cairo_new_path(handle)
    }

    /// Paints another (image) surface with its top-left corner at (x, y).
    func paint(_ source: CairoSurface, x: Double, y: Double) {
        cairo_set_source_surface(handle, source.handle, x, y)
        cairo_paint(handle)
    }

    // MARK: - Text

    /// Selects ``fontFamily`` through Cairo's toy font API (`cairo_select_font_face`).
    func selectFont(size: Double, bold: Bool = false) {
        cairo_select_font_face(
            handle, fontFamily, CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(handle, size)
    }

    /// The characters of `text` the current font has no glyph for. Cairo does no per-glyph font
    /// fallback: a missing glyph is glyph index 0, drawn as an empty box.
    func missingGlyphs(in text: String) -> [Character] {
        guard let font = cairo_get_scaled_font(handle) else { return Array(text) }
        var missing: [Character] = []
        for ch in text where !ch.isWhitespace {
            var glyphs: UnsafeMutablePointer<cairo_glyph_t>?
            var count: Int32 = 0
            let status = cairo_scaled_font_text_to_glyphs(font, 0, 0, String(ch), -1, &glyphs, &count, nil, nil, nil)
            defer { cairo_glyph_free(glyphs) }
            guard status == CAIRO_STATUS_SUCCESS, let glyphs else {
                missing.append(ch)
                continue
            }
            if (0..<Int(count)).contains(where: { glyphs[$0].index == 0 }) { missing.append(ch) }
        }
        return missing
    }

    /// Advance width and ink height of `text` in the current font.
    func textSize(_ text: String) -> (width: Double, height: Double) {
        var e = cairo_text_extents_t()
        cairo_text_extents(handle, text, &e)
        return (e.x_advance, e.height)
    }

    /// Ascent of the current font (baseline to top).
    var ascent: Double {
        var e = cairo_font_extents_t()
        cairo_font_extents(handle, &e)
        return e.ascent
    }

    /// Where a text's left edge goes for an alignment.
    enum Alignment {
        case left, center, right
    }

    /// Draws `text` with its baseline at `y`, aligned at `x`; with `halo`, first an outline of
    /// that colour so the text stays readable over anything.
    func text(
        _ text: String, x: Double, y: Double, _ color: RGBA, align: Alignment = .left, halo: RGBA? = nil,
        haloWidth: Double = 3
    ) {
        let w = textSize(text).width
        let ox: Double
        switch align {
        case .left: ox = x
        case .center: ox = x - w / 2
        case .right: ox = x - w
        }
        if let halo {
            cairo_new_path(handle)
            cairo_move_to(handle, ox, y)
            cairo_text_path(handle, text)
            setColor(halo)
            cairo_set_line_width(handle, haloWidth)
            cairo_stroke(handle)
        }
        cairo_new_path(handle)
        cairo_move_to(handle, ox, y)
        setColor(color)
        cairo_show_text(handle, text)
        cairo_new_path(handle)
    }
}
