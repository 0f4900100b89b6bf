internal import Foundation
public import TexPipeFormats
public import TexPipePixels

/// A 3D colour-grading LUT in the `.cube` text format (Adobe's Cube LUT Specification 1.0, as
/// Resolve, Photoshop and Nuke write it; docs/gpu-textures.md "Colour-grading LUTs"): keywords
/// first — `TITLE "…"`, `LUT_3D_SIZE N` (2–256), `DOMAIN_MIN r g b`, `DOMAIN_MAX r g b`, and
/// Resolve's `LUT_3D_INPUT_RANGE lo hi` — then N³ lines of three numbers, red changing fastest,
/// then green, then blue. `#` starts a comment line; blank lines are skipped. A 1D LUT, a
/// keyword it does not know, a line that is not three finite numbers, a size out of range or a
/// count that is not N³ is a one-line error naming the line.
public struct CubeLUT: Sendable, Equatable {
    public var title: String?
    public var size: Int
    public var domainMin: SIMD3<Float>
    public var domainMax: SIMD3<Float>
    /// N³ RGB triples in the file's order (red fastest, then green, then blue).
    public var values: [Float]

    public static let sizes = 2...256

    public init(_ bytes: [UInt8], maxTexels: Int = Image.defaultMaxPixels) throws(CodecError) {
        // Read through a pointer: a 64³ LUT is 786,432 numbers.
        let parsed = bytes.withUnsafeBufferPointer { p in
            Result { () throws(CodecError) in try Self.parse(p, maxTexels: maxTexels) }
        }
        self = try parsed.get()
    }

    init(title: String?, size: Int, domainMin: SIMD3<Float>, domainMax: SIMD3<Float>, values: [Float]) {
        self.title = title
        self.size = size
        self.domainMin = domainMin
        self.domainMax = domainMax
        self.values = values
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxTexels: Int) throws(CodecError) -> CubeLUT {
        var title: String?
        var size: Int?
        var domainMin = SIMD3<Float>(repeating: 0)
        var domainMax = SIMD3<Float>(repeating: 1)
        var values: [Float] = []
        var line = 0
        var count = 0
        var i = 0
        let n = bytes.count
        func fail(_ why: String, at l: Int? = nil) -> CodecError { CodecError(.cubeLUT(line: l ?? line, why)) }
        guard n > 0 else { throw CodecError(.cubeLUT(line: nil, "the file is empty")) }
        while i < n {
            line += 1
            var end = i
            while end < n && bytes[end] != 0x0A { end += 1 }
            var start = i
            var stop = end
            i = end + 1
            while start < stop && Self.isSpace(bytes[start]) { start += 1 }
            while stop > start && Self.isSpace(bytes[stop - 1]) { stop -= 1 }
            if start == stop || bytes[start] == UInt8(ascii: "#") { continue }
            let first = bytes[start]
            let isKeyword = (first >= UInt8(ascii: "A") && first <= UInt8(ascii: "Z")) || first == UInt8(ascii: "_")
            if isKeyword {
                var k = start
                while k < stop && !Self.isSpace(bytes[k]) { k += 1 }
                let keyword = String(decoding: bytes[start..<k], as: UTF8.self)
                let rest = Array(bytes[k..<stop])
                if count > 0 { throw fail("\(keyword) after the table's first entry (keywords come first)") }
                switch keyword {
                case "TITLE":
                    let text = String(decoding: rest, as: UTF8.self).trimmingCharacters(in: .whitespaces)
                    guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else {
                        throw fail("TITLE needs a quoted text (TITLE \"Warm\")")
                    }
                    title = String(text.dropFirst().dropLast())
                case "LUT_1D_SIZE", "LUT_1D_INPUT_RANGE":
                    throw fail("a 1D LUT (\(keyword)) is not a volume: texpipe reads 3D LUTs (LUT_3D_SIZE)")
                case "LUT_3D_SIZE":
                    let numbers = try Self.numbers(rest, line: line)
                    // In range before it is an Int: a size of 10³⁰ is a number, but no Int.
                    guard numbers.count == 1, let v = numbers.first, v == v.rounded(), v >= 2, v <= 256
                    else {
                        throw fail(
                            "LUT_3D_SIZE must be one whole number from 2 to 256, found "
                                + "\"\(String(decoding: rest, as: UTF8.self).trimmingCharacters(in: .whitespaces))\"")
                    }
                    guard size == nil else { throw fail("a second LUT_3D_SIZE") }
                    size = Int(v)
                    guard Int(v) * Int(v) * Int(v) <= maxTexels else {
                        throw fail("LUT_3D_SIZE \(Int(v)) is more than \(maxTexels) texels")
                    }
                    values.reserveCapacity(Int(v) * Int(v) * Int(v) * 3)
                case "DOMAIN_MIN", "DOMAIN_MAX":
                    let numbers = try Self.numbers(rest, line: line)
                    guard numbers.count == 3 else { throw fail("\(keyword) needs three numbers (r g b)") }
                    let v = SIMD3<Float>(Float(numbers[0]), Float(numbers[1]), Float(numbers[2]))
                    guard v.x.isFinite && v.y.isFinite && v.z.isFinite else {
                        throw fail("\(keyword) is past a 32-bit float's range")
                    }
                    if keyword == "DOMAIN_MIN" { domainMin = v } else { domainMax = v }
                case "LUT_3D_INPUT_RANGE":
                    let numbers = try Self.numbers(rest, line: line)
                    guard numbers.count == 2 else { throw fail("LUT_3D_INPUT_RANGE needs two numbers (min max)") }
                    guard Float(numbers[0]).isFinite && Float(numbers[1]).isFinite else {
                        throw fail("LUT_3D_INPUT_RANGE is past a 32-bit float's range")
                    }
                    domainMin = SIMD3(repeating: Float(numbers[0]))
                    domainMax = SIMD3(repeating: Float(numbers[1]))
                default:
                    throw fail(
                        "unknown keyword \(keyword) (a .cube LUT has TITLE, LUT_3D_SIZE, DOMAIN_MIN, DOMAIN_MAX "
                            + "and LUT_3D_INPUT_RANGE)")
                }
                continue
            }
            guard let size else { throw fail("a table entry before LUT_3D_SIZE") }
            guard count < size * size * size else {
                throw fail("more than LUT_3D_SIZE³ = \(size * size * size) entries")
            }
            var k = start
            for _ in 0..<3 {
                while k < stop && Self.isSpace(bytes[k]) { k += 1 }
                guard let (v, next) = Self.number(bytes, k, stop) else {
                    throw fail(
                        "expected three numbers (r g b), found \"\(String(decoding: bytes[start..<stop], as: UTF8.self).prefix(60))\""
                    )
                }
                guard Float(v).isFinite else {
                    throw fail(
                        "\(String(decoding: bytes[k..<next], as: UTF8.self).prefix(40)) is past a 32-bit float's range")
                }
                values.append(Float(v))
                k = next
            }
            while k < stop && Self.isSpace(bytes[k]) { k += 1 }
            guard k == stop else {
                throw fail(
                    "expected three numbers (r g b), found \"\(String(decoding: bytes[start..<stop], as: UTF8.self).prefix(60))\""
                )
            }
            count += 1
        }
        guard let size else { throw CodecError(.cubeLUT(line: nil, "no LUT_3D_SIZE (not a 3D .cube LUT)")) }
        guard count == size * size * size else {
            throw CodecError(
                .cubeLUT(line: nil, "LUT_3D_SIZE \(size) needs \(size * size * size) entries, found \(count)"))
        }
        for c in 0..<3 where !(domainMin[c] < domainMax[c]) {
            throw CodecError(
                .cubeLUT(
                    line: nil, "DOMAIN_MIN must be below DOMAIN_MAX in every channel (\(["red", "green", "blue"][c]))"))
        }
        return CubeLUT(title: title, size: size, domainMin: domainMin, domainMax: domainMax, values: values)
    }

    /// The volume's depth slices: slice z holds blue index z, its texel (x, y) red index x and
    /// green index y — the entry at x + N·y + N²·z — as Float RGBA with alpha 1.
    public func slices() -> [Image] {
        let n = size
        return (0..<n).map { z in
            let base = z * n * n * 3
            let pixels = [Float](unsafeUninitializedCapacity: n * n * 4) { out, count in
                for k in 0..<(n * n) {
                    out[4 * k] = values[base + 3 * k]
                    out[4 * k + 1] = values[base + 3 * k + 1]
                    out[4 * k + 2] = values[base + 3 * k + 2]
                    out[4 * k + 3] = 1
                }
                count = n * n * 4
            }
            return Image(width: n, height: n, pixels: .rgbaF32(pixels))
        }
    }

    /// The same slices as 8-bit RGBA: each value clamped to 0…1 and rounded (round(v · 255)).
    public func slices8() -> [Image] {
        let n = size
        return (0..<n).map { z in
            let base = z * n * n * 3
            let pixels = [UInt8](unsafeUninitializedCapacity: n * n * 4) { out, count in
                for k in 0..<(n * n) {
                    for c in 0..<3 {
                        let v = values[base + 3 * k + c]
                        out[4 * k + c] = UInt8(
                            (min(max(v.isNaN ? 0 : v, 0), 1) * 255).rounded(.toNearestOrAwayFromZero))
                    }
                    out[4 * k + 3] = 255
                }
                count = n * n * 4
            }
            return Image(width: n, height: n, pixels: .rgba8(pixels))
        }
    }

    @inline(__always) static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D }

    /// Every number of a keyword's arguments (a line error if one is not a number).
    static func numbers(_ array: [UInt8], line: Int) throws(CodecError) -> [Double] {
        var out: [Double] = []
        var k = 0
        while true {
            while k < array.count && isSpace(array[k]) { k += 1 }
            if k == array.count { return out }
            guard let (v, next) = array.withUnsafeBufferPointer({ number($0, k, array.count) }) else {
                throw CodecError(
                    .cubeLUT(
                        line: line,
                        "expected a number, found \"\(String(decoding: array[k...], as: UTF8.self).prefix(40))\""))
            }
            out.append(v)
            k = next
        }
    }

    /// One finite decimal number at `at` (optional sign, digits, a fraction, an exponent), ending
    /// at a space or `end`: its value and where it ends; nil if there is none. Up to 19
    /// significant digits and a power of ten up to 22 are exact in Double, so the value is the
    /// correctly rounded one; anything longer goes through `strtod`.
    static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ at: Int, _ end: Int) -> (Double, Int)? {
        var k = at
        var negative = false
        if k < end && (bytes[k] == UInt8(ascii: "-") || bytes[k] == UInt8(ascii: "+")) {
            negative = bytes[k] == UInt8(ascii: "-")
            k += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var scale = 0
        var seen = false
        while k < end, bytes[k] >= 0x30, bytes[k] <= 0x39 {
            if digits < 19 {
                mantissa = mantissa * 10 + UInt64(bytes[k] - 0x30); if mantissa > 0 { digits += 1 }
            } else {
                scale += 1
            }
            seen = true
            k += 1
        }
        if k < end && bytes[k] == UInt8(ascii: ".") {
            k += 1
            while k < end, bytes[k] >= 0x30, bytes[k] <= 0x39 {
                if digits < 19 {
                    mantissa = mantissa * 10 + UInt64(bytes[k] - 0x30); if mantissa > 0 { digits += 1 }; scale -= 1
                }
                seen = true
                k += 1
            }
        }
        guard seen else { return nil }
        var exponent = 0
        if k < end && (bytes[k] == UInt8(ascii: "e") || bytes[k] == UInt8(ascii: "E")) {
            k += 1
            var negativeExponent = false
            if k < end && (bytes[k] == UInt8(ascii: "-") || bytes[k] == UInt8(ascii: "+")) {
                negativeExponent = bytes[k] == UInt8(ascii: "-")
                k += 1
            }
            var any = false
            while k < end, bytes[k] >= 0x30, bytes[k] <= 0x39 {
                if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[k] - 0x30) }
                any = true
                k += 1
            }
            guard any else { return nil }
            if negativeExponent { exponent = -exponent }
        }
        guard k == end || isSpace(bytes[k]) else { return nil }
        let power = scale + exponent
        var value: Double
        if mantissa < (1 << 53) && abs(power) <= 22 {
            value = power >= 0 ? Double(mantissa) * powers[power] : Double(mantissa) / powers[-power]
        } else {
            // Long or extreme: the C library's conversion of the same text.
            let text = Array(bytes[at..<k]) + [0]
            value = text.withUnsafeBufferPointer { p in
                p.withMemoryRebound(to: CChar.self) { strtod($0.baseAddress!, nil) }
            }
            return value.isFinite ? (value, k) : nil
        }
        if negative { value = -value }
        return value.isFinite ? (value, k) : nil
    }

    static let powers: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { r, _ in r * 10 } }
}
