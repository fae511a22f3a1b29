import Foundation
import RegionSearchCore

/// Renders a map's files and writes them beside an output: `STEM.png`, `STEM.svg`, `STEM.pdf`,
/// `STEM.html`.
public enum MapProducts {
    /// Version of the drawing: part of the maps' cache key, bumped when the same data would be
    /// drawn differently (as a stage's version is), so existing map files are redrawn.
    /// 2: nested levels (coarsest first, rings not repeated inside a ringed parent, labels on
    ///    level 0, a levels line in the legend); the web map's levels by zoom, regions above the
    ///    POIs, POIs thinned where they would cover the map, markers for regions too small to see.
    /// 3: a panel title's counts drawn smaller where they would run past the panel.
    /// 4: the legend's and the web map's levels line say where streets lie (the finest level of the
    ///    core they run through).
    public static let version = 4

    /// One rendered file.
    public struct File {
        public var format: MapFormat
        public var bytes: [UInt8]
    }

    /// Renders every format of `options` (PNG/SVG/PDF through ``MapRenderer``, HTML through
    /// ``WebMapWriter``); `notes` are problems worth a warning (missing glyphs, data notes).
    public static func render(_ data: MapData, options: MapOptions) throws -> (files: [File], notes: [String]) {
        var files: [File] = []
        var notes = data.notes
        let statics = options.formats.filter { $0 != .html }
        if !statics.isEmpty {
            let (rendered, glyphNotes) = try MapRenderer(width: options.width, bbox: options.bbox).render(
                data, formats: statics)
            notes += glyphNotes
            for format in statics {
                if let bytes = rendered[format] { files.append(File(format: format, bytes: bytes)) }
            }
        }
        if options.formats.contains(.html) {
            let writer = WebMapWriter(
                bbox: options.bbox, basemap: options.basemap, basemapAttribution: options.basemapAttribution)
            files.append(File(format: .html, bytes: try writer.page(data)))
        }
        return (files, notes)
    }

    /// `STEM.ext` for a format.
    public static func path(stem: String, _ format: MapFormat) -> String { stem + "." + format.rawValue }

    /// The output's path without its extension: `out/default.geojson` → `out/default`.
    public static func stem(of output: String) -> String {
        let slash = output.lastIndex(of: "/").map { output.index(after: $0) } ?? output.startIndex
        guard let dot = output[slash...].lastIndex(of: "."), dot != slash else { return output }
        return String(output[..<dot])
    }

    /// Writes each file atomically (temporary file, fsync, rename) unless it already holds
    /// exactly these bytes; returns each path and whether it was written.
    public static func write(_ files: [File], stem: String) throws -> [(path: String, written: Bool)] {
        var out: [(String, Bool)] = []
        for f in files {
            let path = path(stem: stem, f.format)
            if let existing = FileManager.default.contents(atPath: path), existing.elementsEqual(f.bytes) {
                out.append((path, false))
                continue
            }
            do {
                try AtomicFile.write(f.bytes, to: path)
            } catch {
                throw ToolFailure("map \(error)", status: .output)
            }
            out.append((path, true))
        }
        return out
    }
}
