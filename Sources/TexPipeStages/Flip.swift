public import TexPipeParameters
public import TexPipePixels

/// `flip`: mirrors left–right (`horizontal`), top–bottom (`vertical`) or both. docs/stages.md.
/// A pure pixel move: flipping twice gives the input back byte for byte.
public struct Flip: Stage {
    public static let name = "flip"
    public static let summary = "mirrors the image: horizontal (left–right), vertical or both"
    public static let takesHDR = true
    public static let identity = #"{"axis": "horizontal"}"#
    public static let identityApplications = 2
    public static let parameters: [Parameter] = [
        .choice("axis", Axis.self, doc: "which way to mirror")
    ]

    public enum Axis: String, Sendable, CaseIterable { case horizontal, vertical, both }
    public var axis: Axis

    public init(_ arguments: Arguments) { axis = arguments.choice("axis", as: Axis.self) }
    public init(axis: Axis) { self.axis = axis }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        var out = consume image
        out.run(Kernel(axis: axis))
        return [out]
    }

    /// In place: each pixel swaps with its mirror image, so the pair is visited once.
    struct Kernel: InPlaceKernel {
        static var movesPixelsOnly: Bool { true }
        var axis: Axis
        func run<C: PixelChannel>(_ p: UnsafeMutableBufferPointer<C>, width w: Int, height h: Int) {
            let mirrorX = axis != .vertical
            let mirrorY = axis != .horizontal
            // Rows top and bottom swap (vertical, both); each row reverses its pixels (horizontal, both).
            let rows = mirrorY ? (h + 1) / 2 : h
            for y in 0..<rows {
                let top = y * w * 4
                let bottom = (mirrorY ? h - 1 - y : y) * w * 4
                if !mirrorX {
                    if top != bottom { swapRuns(p, top, bottom, count: w * 4) }
                    continue
                }
                // Pixel x of one row with pixel w−1−x of the other (the same row when they meet).
                let pairs = top == bottom ? w / 2 : w
                for x in 0..<pairs {
                    let a = top + x * 4
                    let b = bottom + (w - 1 - x) * 4
                    for c in 0..<4 { p.swapAt(a + c, b + c) }
                }
            }
        }

        @inline(__always) func swapRuns<C>(_ p: UnsafeMutableBufferPointer<C>, _ a: Int, _ b: Int, count: Int) {
            for i in 0..<count { p.swapAt(a + i, b + i) }
        }
    }
}
