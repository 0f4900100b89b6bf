public import TexPipePixels

/// `flip`: mirrors left–right (`horizontal`), top–bottom (`vertical`) or both. docs/stages.md.
/// A pure pixel move: flipping twice gives the input back byte for byte.
public struct Flip: Stage {
    public static let name = "flip"
    public static let summary = "mirrors the image: horizontal (left–right), vertical or both"
    public static let identity = #"{"axis": "horizontal"}"#
    public static let identityApplications = 2
    public static let parameters: [Parameter] = [
        .choice("axis", Axis.self, doc: "which way to mirror")
    ]

    public enum Axis: String, Sendable, CaseIterable { case horizontal, vertical, both }
    public var axis: Axis

    public init(_ arguments: Arguments) { axis = arguments.choice("axis", as: Axis.self) }
    public init(axis: Axis) { self.axis = axis }

    public func applied(to image: Image, context: inout StageContext) throws -> [Image] {
        [image.produced(width: image.width, height: image.height, Kernel(axis: axis))]
    }

    struct Kernel: CopyKernel {
        var axis: Axis
        func run<C: PixelChannel>(
            _ src: UnsafeBufferPointer<C>, srcWidth w: Int, srcHeight h: Int,
            _ dst: UnsafeMutableBufferPointer<C>, width: Int, height: Int
        ) {
            let mirrorX = axis != .vertical
            let mirrorY = axis != .horizontal
            for y in 0..<h {
                let sy = mirrorY ? h - 1 - y : y
                let srow = sy * w * 4
                let drow = y * w * 4
                if !mirrorX {
                    _ = UnsafeMutableBufferPointer(rebasing: dst[drow..<drow + w * 4])
                        .update(fromContentsOf: UnsafeBufferPointer(rebasing: src[srow..<srow + w * 4]))
                    continue
                }
                for x in 0..<w {
                    let s = srow + (w - 1 - x) * 4
                    let d = drow + x * 4
                    copyPixel(src, s, to: dst, d)
                }
            }
        }
    }
}
