import Testing
import TexPipeTestSupport

@testable import TexPipePixels

@Suite("color parsing")
struct ColorTests {
    static func rgba8(_ s: String) -> [Int]? { Color(parsing: s)?.channels(max: 255) }

    @Test func everySyntax() {
        #expect(Self.rgba8("#0f8") == [0, 255, 136, 255])
        #expect(Self.rgba8("#0f88") == [0, 255, 136, 136])
        #expect(Self.rgba8("#008000") == [0, 128, 0, 255])
        #expect(Self.rgba8("#00800080") == [0, 128, 0, 128])
        #expect(Self.rgba8("rgb(0, 128, 0)") == [0, 128, 0, 255])
        #expect(Self.rgba8("rgba(255,0,0,0.5)") == [255, 0, 0, 128])
        #expect(Self.rgba8("hsv(120, 100%, 50%)") == [0, 128, 0, 255])
        #expect(Self.rgba8("hsb(0, 0%, 100%)") == [255, 255, 255, 255])
        #expect(Self.rgba8("hsl(120, 100%, 25%)") == [0, 128, 0, 255])
        #expect(Self.rgba8("hsl(0, 100%, 50%)") == [255, 0, 0, 255])
        #expect(Self.rgba8("hsl(240, 100%, 50%)") == [0, 0, 255, 255])
        #expect(Self.rgba8("hsv(300, 50%, 100%)") == [255, 128, 255, 255])
        #expect(Self.rgba8("Green") == [0, 128, 0, 255])
        #expect(Self.rgba8("rebeccapurple") == [102, 51, 153, 255])
        #expect(Self.rgba8("transparent") == [0, 0, 0, 0])
        #expect(Self.rgba8("  white ") == [255, 255, 255, 255])
    }

    @Test func malformedColorsAreRejected() {
        for bad in [
            "", "#12", "#12345", "#ggg", "rgb(1,2)", "rgb(0,300,0)", "rgba(1,2,3)", "rgba(1,2,3,2)",
            "hsl(0, 120%, 50%)", "blurple", "rgb(a,b,c)", "rgb(1,2,3",
        ] {
            #expect(Color(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func all148NamedColors() {
        #expect(cssNamedColors.count == 148)
        #expect(cssNamedColors["aqua"] == cssNamedColors["cyan"])
        #expect(cssNamedColors["gray"] == 0x808080 && cssNamedColors["grey"] == 0x808080)
    }

    @Test func sixteenBitChannelsAreExactMultiples() {
        #expect(Color(parsing: "#ff8001")!.channels(max: 65535) == [65535, 128 * 257, 257, 65535])
    }
}
