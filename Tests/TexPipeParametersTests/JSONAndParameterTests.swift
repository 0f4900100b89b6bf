import Testing
import TexPipeTestSupport

@testable import TexPipeParameters
@testable import TexPipePixels

@Suite("JSON parser and parameter kinds")
struct JSONAndParameterTests {
    @Test func parsesStrictJSONWithOrderedKeys() throws {
        let v = try JSONParser.parse(Array(#"{"b": [1, -2.5e1, true, null], "a": "x\u00e9\ud83d\ude00\n"}"#.utf8))
        guard case .object(let o) = v else { Issue.record("not an object"); return }
        #expect(o.keys == ["b", "a"])
        #expect(o["b"] == .array([.number(1), .number(-25), .bool(true), .null]))
        #expect(o["a"] == .string("xé😀\n"))
        #expect(v.canonical == #"{"a":"xé😀\n","b":[1,-25,true,null]}"#)
    }

    @Test func reportsSyntaxErrorsWithLineAndColumn() {
        func message(_ text: String) -> String {
            do {
                _ = try JSONParser.parse(Array(text.utf8))
                return "parsed"
            } catch {
                return error.description
            }
        }
        #expect(message("{\"a\": 1, \"a\": 2}") == "line 1, column 10: duplicate key \"a\"")
        #expect(message("[1, 2,]") == "line 1, column 7: unexpected character ']'")
        #expect(message("{\n  \"a\": tru }") == "line 2, column 8: invalid literal (expected true)")
        #expect(message("[01]") == "line 1, column 3: expected ',' or ']' in an array")
        #expect(message("\"abc") == "line 1, column 5: unterminated string")
        #expect(message(String(repeating: "[", count: 600)) == "line 1, column 513: nested too deeply")
    }

    static func decode(_ json: String, _ table: [Parameter]) -> (Arguments?, [String]) {
        guard case .object(let o)? = try? JSONParser.parse(Array(json.utf8)) else { return (nil, ["bad test JSON"]) }
        var d = ParameterDecoder(file: "m.json", placeholders: ["r": "7"], knownNames: [])
        let args = d.decode(o, at: JSONPath().key("stage"), table: table)
        return (args, d.diagnostics.map(\.description))
    }

    /// A table of the shape `round-corners` declares (one or four numbers, a nested object with a
    /// required key), written here so the decoder is tested on its own.
    static let corners: [Parameter] = [
        Parameter("radius", .numberOrList(count: 4, 0...65536), .required, doc: "px, or per corner"),
        Parameter(
            "border",
            .object([.number("width", in: 0...4096, doc: "stroke width"), .color("color", doc: "stroke color")]),
            .optional(absentDoc: "none"), doc: "a stroke"),
    ]

    @Test func oneOrFourNumbersAndNestedObjects() throws {
        let (one, _) = Self.decode(#"{"radius": 5}"#, Self.corners)
        #expect(try #require(one).numbers("radius") == [5, 5, 5, 5])
        // Fractional radii (docs/stages.md): one, or per corner.
        let (half, _) = Self.decode(#"{"radius": 7.5}"#, Self.corners)
        #expect(try #require(half).numbers("radius") == [7.5, 7.5, 7.5, 7.5])
        let (mixed, _) = Self.decode(#"{"radius": [0.5, 2, 3.25, 4]}"#, Self.corners)
        #expect(try #require(mixed).numbers("radius") == [0.5, 2, 3.25, 4])
        let (four, _) = Self.decode(
            #"{"radius": [1, 2, 3, 4], "border": {"width": 2, "color": "red"}}"#, Self.corners)
        let args = try #require(four)
        #expect(args.numbers("radius") == [1, 2, 3, 4])
        #expect(args.object("border")?.number("width") == 2)
        #expect(args.object("border")?.color("color") == Color(r: 1, g: 0, b: 0))
        let (fromPlaceholder, _) = Self.decode(#"{"radius": "{r}"}"#, Self.corners)
        #expect(try #require(fromPlaceholder).numbers("radius") == [7, 7, 7, 7])
        let (_, negative) = Self.decode(#"{"radius": -0.5}"#, Self.corners)
        #expect(
            negative == [
                "error: m.json: stage.radius: expected a number in 0…65536 or an array of 4 of them, found -0.5"
            ])
        let (_, errors) = Self.decode(
            #"{"radius": [1, 2], "border": {"width": -1, "colour": "red"}}"#, Self.corners)
        #expect(
            errors == [
                "error: m.json: stage.radius: expected a number in 0…65536 or an array of 4 of them, found an array",
                "error: m.json: stage.border.colour: unknown key \"colour\"; did you mean \"color\"?",
                "error: m.json: stage.border.width: expected a number in 0…4096, found -1",
                "error: m.json: stage.border: missing required key \"color\" (a color)",
            ])
    }
}
