/// The BC6H decoder (unsigned, `BC6H_UFLOAT`), written from the BPTC specification's decoding
/// procedure: mode, endpoints gathered per Table.F, deltas sign-extended and added to endpoint 0
/// (wrapped at the endpoint bits), unquantized, interpolated with the BPTC weights, and scaled by
/// 31/64 into a half float's bits. A reserved mode decodes to black. It shares only the spec's
/// tables with the encoder (`BC6H.swift`).
package enum BC6HDecoder {
    /// One level's blocks as Float RGBA (alpha 1), width × height.
    package static func decode(_ blocks: [UInt8], width: Int, height: Int) throws -> [Float] {
        var texels = [UInt16](repeating: 0, count: 48)
        // Half bit patterns to Float, once per pattern (every texel is one of them).
        let floats = halfTable
        return try BlockRows.decode(blocks, width: width, height: height, blockBytes: 16, family: "BC6H", fill: 1) {
            at, t in
            decodeBlock(blocks, at, into: &texels)
            for i in 0..<16 {
                for c in 0..<3 { t[i * 4 + c] = floats[Int(texels[i * 3 + c])] }
                t[i * 4 + 3] = 1
            }
        }
    }

    /// Every half bit pattern BC6H can produce (0…0x7BFF) as a Float.
    static let halfTable: [Float] = (0...0x7BFF).map { Float(Float16(bitPattern: UInt16($0))) }

    /// The 16 texels of the block at `at` as half-float bit patterns, (r, g, b) per texel, rows
    /// top to bottom.
    static func decodeBlock(_ b: [UInt8], _ at: Int, into t: inout [UInt16]) {
        precondition(at >= 0 && at + 16 <= b.count && t.count >= 48)
        var block: UInt128 = 0
        for i in 0..<16 { block |= UInt128(b[at + i]) << (8 * i) }
        func bits(_ position: Int, _ n: Int) -> Int {
            Int(truncatingIfNeeded: (block >> position) & ((1 << n) - 1))
        }
        let low = bits(0, 2)
        let number = low < 2 ? low : bits(0, 5)
        guard let mode = BC6HLayout.modeByNumber[number] else {
            for i in 0..<48 { t[i] = 0 }
            return
        }
        let layout = BC6HLayout.bits[number]
        // e[channel · 4 + endpoint]
        var e = SIMD16<Int>()
        for (position, bit) in layout.enumerated() where Int(bit.field) != BC6HLayout.modeField {
            e[Int(bit.field)] |= bits(position, 1) << Int(bit.bit)
        }
        let endpoints = mode.twoRegions ? 4 : 2
        let epb = mode.endpointBits
        if mode.transformed {
            let mask = (1 << epb) - 1
            for c in 0..<3 {
                let n = Int(mode.deltaBits[c])
                for k in 1..<endpoints {
                    var d = e[c * 4 + k]
                    if d & (1 << (n - 1)) != 0 { d -= 1 << n }  // sign extension
                    e[c * 4 + k] = (e[c * 4] + d) & mask
                }
            }
        }
        // Unquantized to 16 bits.
        for i in 0..<12 {
            let x = e[i]
            e[i] =
                epb >= 15 ? x : x == 0 ? 0 : x == (1 << epb) - 1 ? 0xFFFF : ((x << 15) + 0x4000) >> (epb - 1)
        }
        var position = layout.count
        let partition = mode.twoRegions ? bits(position, 5) : 0
        if mode.twoRegions { position += 5 }
        let indexBits = mode.twoRegions ? 3 : 4
        let weights = BC7.weights[indexBits - 2]
        let anchor = mode.twoRegions ? Int(BC7.anchors2[partition]) : 0
        for i in 0..<16 {
            let n = i == 0 || i == anchor ? indexBits - 1 : indexBits
            let index = bits(position, n)
            position += n
            let subset = mode.twoRegions ? Int((BC7.partitions2[partition] >> i) & 1) : 0
            let w = Int(weights[index])
            for c in 0..<3 {
                let a = e[c * 4 + subset * 2]
                let z = e[c * 4 + subset * 2 + 1]
                let v = (a * (64 - w) + z * w + 32) >> 6
                t[i * 3 + c] = UInt16((v * 31) >> 6)
            }
        }
    }
}
