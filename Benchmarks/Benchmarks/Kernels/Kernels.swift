import Benchmark
import TexPipe

/// One benchmark per stage kernel on 256², 1024² and 4096² RGBA8 images: a sprite-like image
/// (opaque shape, key-green outside, soft edge). Throughput is kernel runs per second; megapixels
/// per second = throughput × size² / 10⁶. Allocations come from the malloc interposer.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(3), maxIterations: 50)

    for n in [256, 1024, 4096] {
        let sprite = makeSprite(n)
        let keyed = try! ColorKey(color: green, tolerance: 0.1).applied(to: sprite)[0]
        let pma = try! Premultiply().applied(to: keyed)[0]
        func bench(_ name: String, _ body: @escaping @Sendable () throws -> Void) {
            Benchmark("\(name) \(n)²") { benchmark in
                for _ in benchmark.scaledIterations { blackHole(try body()) }
            }
        }
        bench("color-key") { _ = try ColorKey(color: green, tolerance: 0.1).applied(to: sprite) }
        bench("color-key edges") { _ = try ColorKey(color: green, tolerance: 0.1, region: .edges).applied(to: sprite) }
        bench("premultiply") { _ = try Premultiply().applied(to: keyed) }
        bench("unpremultiply") { _ = try Unpremultiply().applied(to: pma) }
        bench("bleed") { _ = try Bleed().applied(to: keyed) }
        bench("alpha-split") { _ = try AlphaSplit().applied(to: keyed) }
        for filter in ResampleFilter.allCases {
            var mipmaps = Mipmaps()
            mipmaps.filter = filter
            let m = mipmaps
            bench("mipmaps \(filter.rawValue)") { _ = try m.applied(to: keyed) }
        }
        for filter in [Rotate.Filter.bilinear, .bicubic, .lanczos3] {
            bench("rotate 17° \(filter.rawValue)") { _ = try Rotate(degrees: 17, filter: filter).applied(to: keyed) }
        }
        bench("shadow σ4") { _ = try Shadow().applied(to: keyed) }
        bench("round-corners r16") { _ = try RoundCorners(radius: [16]).applied(to: keyed) }
        // Blend-mode families: a plain one, a branching separable one, and the non-separable ones,
        // each as "@input" over itself (no file: the kernel alone).
        for mode in [Composite.BlendMode.normal, .multiply, .overlay, .softLight, .colorDodge, .hue, .luminosity] {
            let stage = Composite(layers: [Composite.Layer(.image(nil), blend: mode)])
            bench("composite \(mode.rawValue)") { _ = try stage.applied(to: keyed) }
        }
        bench("adjust hue+saturation") { _ = try Adjust(hue: 30, saturation: 1.2).applied(to: keyed) }
        bench("png encode (texpipe, level 6)") { _ = try ImageEncoder.png(keyed) }
        let encoded = try! ImageEncoder.png(keyed)
        bench("png decode (texpipe reader)") { _ = try ImageDecoder.decode(encoded) }
        bench("png decode (libpng)") { _ = try ImageDecoder.decode(encoded, pngReader: .libpng) }
    }
}

let green = Color(r: 0, g: 128.0 / 255, b: 0)

/// A disc of color with a 2-px soft edge on key green; deterministic.
func makeSprite(_ n: Int) -> Image {
    var p = [UInt8](repeating: 0, count: n * n * 4)
    let c = Double(n) / 2
    let r = Double(n) * 0.4
    for y in 0..<n {
        for x in 0..<n {
            let d = ((Double(x) + 0.5 - c) * (Double(x) + 0.5 - c) + (Double(y) + 0.5 - c) * (Double(y) + 0.5 - c)).squareRoot()
            let f = max(0, min(1, (r - d) / 2))
            let i = (y * n + x) * 4
            p[i] = UInt8(f * Double((x * 7) & 255) + (1 - f) * 0)
            p[i + 1] = UInt8(f * Double((y * 5) & 255) + (1 - f) * 128)
            p[i + 2] = UInt8(f * 200)
            p[i + 3] = 255
        }
    }
    return Image(width: n, height: n, pixels: .rgba8(p))
}
