internal import CTexPipeShims
internal import Foundation
public import TexPipeFormats
public import TexPipePixels

/// Finds the font file and face of a manifest's `font`: a path (relative to the manifest) or a
/// fontconfig pattern such as `"DejaVu Sans:bold"`. docs/stages.md `text`.
public enum FontFinder {
    /// A spec names a file when it has a folder separator or a font file extension.
    static func isPath(_ spec: String) -> Bool {
        let lower = spec.lowercased()
        return spec.contains("/") || [".ttf", ".otf", ".ttc", ".pfb", ".woff"].contains { lower.hasSuffix($0) }
    }

    /// Finds `spec` (the planner asks once per plan: fontconfig's match is the slow part). A
    /// missing font is an error naming the pattern and how to list what is installed.
    public static func resolve(_ spec: String, baseDirectory: String) -> Result<FontFace, CodecError> {
        let key = isPath(spec) && !spec.hasPrefix("/") ? baseDirectory + "/" + spec : spec
        let result: Result<FontFace, CodecError>
        if isPath(spec) {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: key, isDirectory: &isDirectory), !isDirectory.boolValue {
                result = .success(FontFace(path: key, faceIndex: 0))
            } else {
                result = .failure(CodecError(.fontFileMissing(spec: spec)))
            }
        } else {
            var path = [CChar](repeating: 0, count: 4096)
            var family = [CChar](repeating: 0, count: 256)
            var err = [CChar](repeating: 0, count: 512)
            var index: Int32 = 0
            let status = tp_font_find(spec, &path, path.count, &index, &family, family.count, &err, err.count)
            if status == 0 {
                result = .success(FontFace(path: String(nullTerminated: path), faceIndex: Int(index)))
            } else {
                result = .failure(
                    CodecError(.fontMissing(spec: spec, why: String(nullTerminated: err))))
            }
        }
        return result
    }
}

extension TextBitmap {
    /// One line of `text` at `size` px per em with the font's advances and kerning, unhinted.
    public static func rendered(_ text: String, font: FontFace, size: Double, outline: Double = 0) throws -> TextBitmap
    {
        var raw = tp_text_bitmap()
        var err = [CChar](repeating: 0, count: 512)
        let status = tp_text_render(font.path, Int32(font.faceIndex), size, text, outline, &raw, &err, err.count)
        guard status == 0 else { throw CodecError(.library(String(nullTerminated: err))) }
        defer {
            tp_free(raw.fill)
            tp_free(raw.outline)
        }
        var out = TextBitmap()
        out.width = Int(raw.width)
        out.height = Int(raw.height)
        out.left = Int(raw.left)
        out.top = Int(raw.top)
        let area = out.width * out.height
        if let fill = raw.fill { out.fill = Array(UnsafeBufferPointer(start: fill, count: area)) }
        if let ring = raw.outline { out.outline = Array(UnsafeBufferPointer(start: ring, count: area)) }
        return out
    }
}
