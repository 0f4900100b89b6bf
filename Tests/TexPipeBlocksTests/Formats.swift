@testable import TexPipeBlocks
@testable import TexPipeFormats

extension TextureSettings.Format {
    /// The BC encoder variant of a BC format (a test's shorthand; nil-free for BC formats only).
    var bcVariant: BCVariant {
        guard case .bc(let v) = info.codec else { fatalError("\(self) is not a BC format") }
        return v
    }
}
