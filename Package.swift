// swift-tools-version: 6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// The tests run against a release build of texpipe (Scripts/test), but the test code itself is
// compiled unoptimised: optimising it cost more compile time than all its running saves.
let tests: [SwiftSetting] = strict + [.unsafeFlags(["-Onone"], .when(configuration: .release))]

let package = Package(
    name: "texpipe",
    products: [
        .library(name: "TexPipe", targets: ["TexPipe"]),
        .executable(name: "texpipe", targets: ["texpipe"]),
        // `swift package --allow-writing-to-package-directory texpipe` in a package that depends on texpipe.
        .plugin(name: "TexPipePlugin", targets: ["TexPipePlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation --target TexPipe` (CI builds it without warnings).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]),
        .systemLibrary(
            name: "CJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg-dev"])]),
        // libdeflate: texpipe's own PNG writer compresses with it (2.85× faster than zlib here).
        .systemLibrary(
            name: "CDeflate", pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]),
        // KTX2 supercompression.
        .systemLibrary(
            name: "CZstd", pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"])]),
        // ASTC through Arm's astcenc (Debian's libastcenc-dev: a C++ header, no pkg-config file):
        // the only C++ in texpipe, a C interface around it.
        .target(
            name: "CTexPipeASTC",
            cxxSettings: [.define("ASTCENC_DYNAMIC_LIBRARY")],
            linkerSettings: [.linkedLibrary("astcenc")]),
        // The remote cache's HTTP: libcurl's multi interface, driven by a small C file of texpipe's
        // (curl_easy_setopt is variadic, which Swift cannot call).
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "CTexPipeHTTP", dependencies: ["CCurl"]),
        // SHA-256 (cache keys and content digests) from OpenSSL's libcrypto, which libcurl already
        // brings into the process: no second copy of a crypto library to compile (swift-crypto
        // built BoringSSL, over a third of a clean debug build, for this one function).
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        // Text layers: FreeType renders, fontconfig finds fonts by name.
        .systemLibrary(
            name: "CFreeType", pkgConfig: "freetype2",
            providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(
            name: "CFontconfig", pkgConfig: "fontconfig",
            providers: [.apt(["libfontconfig-dev"])]),
        // WebP through libwebp (and libwebpdemux for an animation's first frame), AVIF through
        // libavif (libaom encodes, dav1d decodes): Debian's libwebp-dev and libavif-dev. libavif is
        // linked by name below: its pkg-config file gives -DAVIF_DLL, a flag SwiftPM refuses with a
        // warning (on Linux it changes nothing; the header and library are on the default paths).
        .systemLibrary(
            name: "CWebP", pkgConfig: "libwebpdemux",
            providers: [.apt(["libwebp-dev"])]),
        // The only C code: every call into libpng / libjpeg / FreeType / fontconfig (setjmp armed per
        // call), libwebp, libavif and OpenEXR.
        // OpenEXR through its C API (OpenEXRCore, Debian's libopenexr-dev: error codes, no C++
        // exceptions to contain, no pkg-config file of its own).
        .target(
            name: "CTexPipeShims", dependencies: ["CPNG", "CJPEG", "CFreeType", "CFontconfig", "CWebP"],
            linkerSettings: [.linkedLibrary("OpenEXRCore-3_1"), .linkedLibrary("avif")]),
        // The layers, bottom to top (docs/ARCHITECTURE.md). Each imports only those below it, so a
        // back-edge is a build error.
        .target(name: "TexPipePixels", swiftSettings: strict),
        // The vocabulary of settings: parameter tables and their values, the strict JSON reader, JSON
        // paths, diagnostics and the decoder that checks a JSON object against a table. Stages, the
        // output settings and the atlas each declare their own table with it.
        .target(name: "TexPipeParameters", dependencies: ["TexPipePixels"], swiftSettings: strict),
        // What outputs can be, as data and with no C library: the texture format table, the
        // output kinds and the png/jpeg/texture settings the manifest decodes.
        .target(name: "TexPipeFormats", dependencies: ["TexPipePixels", "TexPipeParameters"], swiftSettings: strict),
        // The measures: PSNR (log-RGB for HDR), SSIM, LDR- and HDR-FLIP and the normal angle of a
        // level against the image that was encoded, what one level's measures are (`LevelQuality`),
        // the gates' verdict over them and FLIP's heat maps. The encoder, the gates, `diff` and the
        // reports all measure and judge through here.
        .target(name: "TexPipeMeasures", dependencies: ["TexPipeFormats"], swiftSettings: strict),
        // The block codecs: texpipe's BC1–BC7, BC6H, ETC2/EAC, ETC1S and UASTC encoders and decoders,
        // RDO, ASTC through astcenc, zstd; `TextureCodecs` is the one door from a format to them.
        .target(
            name: "TexPipeBlocks",
            dependencies: [
                "TexPipePixels", "TexPipeFormats", "TexPipeMeasures", "CTexPipeShims", "CZstd", "CTexPipeASTC",
            ],
            swiftSettings: strict),
        // Image files: PNG, JPEG, OpenEXR, Radiance and `.cube` LUTs (bytes ↔ Image), fonts, and
        // the reader of every file. What the planner needs of files: no block codec.
        .target(
            name: "TexPipeCodecs",
            dependencies: ["TexPipePixels", "TexPipeFormats", "CTexPipeShims", "CDeflate"],
            swiftSettings: strict),
        // GPU texture files: KTX2 and DDS written from levels through the block codecs, and read back.
        .target(
            name: "TexPipeTextures",
            dependencies: [
                "TexPipePixels", "TexPipeParameters", "TexPipeFormats", "TexPipeMeasures", "TexPipeBlocks", "CZstd",
            ],
            swiftSettings: strict),
        // glTF models: the `.gltf`/GLB reader, which textures a model makes, and the rewrite.
        .target(
            name: "TexPipeModels",
            dependencies: ["TexPipeParameters", "TexPipeFormats", "TexPipeCodecs"],
            swiftSettings: strict),
        .target(name: "TexPipeStages", dependencies: ["TexPipePixels", "TexPipeParameters"], swiftSettings: strict),
        // Sprite atlases: the MaxRects packer, page drawing, TexturePacker JSON and libGDX metadata.
        .target(name: "TexPipeAtlas", dependencies: ["TexPipePixels", "TexPipeParameters"], swiftSettings: strict),
        .target(
            name: "TexPipeManifest",
            dependencies: ["TexPipePixels", "TexPipeParameters", "TexPipeFormats", "TexPipeStages", "TexPipeAtlas"],
            swiftSettings: strict),
        .target(
            name: "TexPipePlan",
            dependencies: [
                "TexPipePixels", "TexPipeParameters", "TexPipeFormats", "TexPipeManifest", "TexPipeStages",
                "TexPipeCodecs", "TexPipeModels", "TexPipeAtlas",
            ],
            swiftSettings: strict),
        // The caches below the engine: the local index (`.texpipe/`), the remote cache of the Bazel
        // HTTP protocol, its HTTP client (libcurl through CTexPipeHTTP) and its cost model.
        .target(
            name: "TexPipeCache",
            dependencies: [
                "TexPipePixels", "TexPipeFormats", "TexPipeMeasures", "TexPipeCodecs", "TexPipePlan", "CTexPipeHTTP",
                "COpenSSL",
            ],
            swiftSettings: strict),
        .target(
            name: "TexPipeEngine",
            dependencies: [
                "TexPipePixels", "TexPipeParameters", "TexPipeFormats", "TexPipeMeasures", "TexPipeStages",
                "TexPipeCodecs", "TexPipeTextures", "TexPipeModels", "TexPipeAtlas", "TexPipePlan", "TexPipeCache",
                "CTexPipeShims",
            ],
            swiftSettings: strict),
        .target(
            name: "TexPipeReport",
            dependencies: [
                "TexPipePixels", "TexPipeParameters", "TexPipeFormats", "TexPipeMeasures", "TexPipeStages",
                "TexPipeCodecs", "TexPipeTextures", "TexPipeModels", "TexPipeAtlas", "TexPipePlan", "TexPipeCache",
                "TexPipeEngine",
            ],
            swiftSettings: strict),
        // The library product: re-exports the layers' public API, nothing else.
        .target(
            name: "TexPipe",
            dependencies: [
                "TexPipePixels", "TexPipeParameters", "TexPipeFormats", "TexPipeMeasures", "TexPipeBlocks",
                "TexPipeCodecs", "TexPipeTextures", "TexPipeModels", "TexPipeStages", "TexPipeAtlas", "TexPipeManifest",
                "TexPipePlan", "TexPipeCache", "TexPipeEngine", "TexPipeReport",
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "texpipe",
            dependencies: [
                "TexPipe",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
        // Every reader of an untrusted file as a fuzz target (Scripts/fuzz builds texpipe-fuzz with
        // libFuzzer); built plainly, texpipe-fuzz replays inputs.
        .target(name: "TexPipeFuzzing", dependencies: ["TexPipe"], swiftSettings: strict),
        .executableTarget(name: "texpipe-fuzz", dependencies: ["TexPipeFuzzing"], swiftSettings: strict),
        .plugin(
            name: "TexPipePlugin",
            capability: .command(
                intent: .custom(verb: "texpipe", description: "Run texpipe on the package's pipeline.json"),
                permissions: [
                    .writeToPackageDirectory(
                        reason: "texpipe writes its outputs and its cache (.texpipe/) beside pipeline.json")
                ]),
            // No dependency on the `texpipe` executable: the plugin asks SwiftPM to build it (see
            // Plugins/TexPipePlugin), so `swift build` does not compile a second, host copy of it.
            dependencies: []),
        // The tests: one target per layer, each built as soon as its layer is (beside the layers
        // above it), and importing only its layer and what that needs; TexPipeTests holds what
        // spans layers (the planner, the engine's jobs, reports, the umbrella's graph).
        // TexPipeTestSupport is what they share: the independent references (Python, astcenc),
        // the reference PNG writer, the KTX2/DDS readers from the specifications, image helpers
        // and temporary folders; public API only, so `swift build` compiles it without testability.
        .target(
            name: "TexPipeTestSupport",
            dependencies: ["TexPipePixels", "TexPipeFormats", "TexPipeStages", "TexPipeCodecs", "TexPipeTextures"],
            path: "Tests/TexPipeTestSupport",
            // Reference scripts, run by path (Python.script).
            exclude: [
                "rectpack_best.py", "basisu_reference.py", "webgl_reference.py", "gltf_reference.py",
                "metrics_reference.py", "web_reference.py", "normals_reference.py",
            ],
            swiftSettings: tests),
        // What the tests of the planner and the layers above it share: planning a manifest in a
        // test's folder.
        .target(
            name: "TexPipePlanTestSupport", dependencies: ["TexPipeTestSupport", "TexPipeManifest", "TexPipePlan"],
            path: "Tests/TexPipePlanTestSupport", swiftSettings: tests),
        layerTests("TexPipePixels"),
        layerTests("TexPipeParameters", ["TexPipePixels"]),
        layerTests("TexPipeFormats", ["TexPipePixels", "TexPipeParameters"]),
        layerTests("TexPipeMeasures", ["TexPipePixels", "TexPipeFormats"]),
        // The block tests hand KTX2/DDS files to the references: the container writer is the one
        // layer above theirs they use.
        layerTests(
            "TexPipeBlocks", ["TexPipeFormats", "TexPipeMeasures", "TexPipeTextures", "TexPipeCodecs", "TexPipePixels"]),
        layerTests("TexPipeCodecs", ["TexPipePixels", "TexPipeParameters", "TexPipeFormats"]),
        layerTests(
            "TexPipeTextures",
            ["TexPipePixels", "TexPipeFormats", "TexPipeMeasures", "TexPipeBlocks", "TexPipeParameters"]),
        layerTests("TexPipeModels", ["TexPipePixels", "TexPipeParameters", "TexPipeFormats"]),
        layerTests("TexPipeStages", ["TexPipePixels", "TexPipeParameters"]),
        layerTests("TexPipeAtlas", ["TexPipePixels"]),
        layerTests("TexPipeManifest", ["TexPipePixels", "TexPipeParameters", "TexPipeFormats", "TexPipeStages"]),
        layerTests(
            "TexPipePlan",
            [
                "TexPipePixels", "TexPipeParameters", "TexPipeFormats", "TexPipeManifest", "TexPipeStages",
                "TexPipeCodecs",
                "TexPipePlanTestSupport",
            ]),
        layerTests("TexPipeCache", ["TexPipePixels", "TexPipeFormats", "TexPipeMeasures", "TexPipePlan"]),
        layerTests(
            "TexPipeEngine",
            [
                "TexPipePixels", "TexPipeFormats", "TexPipeMeasures", "TexPipeStages", "TexPipeCodecs",
                "TexPipeTextures", "TexPipeManifest", "TexPipePlan", "TexPipeCache", "TexPipePlanTestSupport",
            ]),
        layerTests(
            "TexPipeReport",
            [
                "TexPipePixels", "TexPipeParameters", "TexPipeFormats", "TexPipeStages", "TexPipeManifest",
                "TexPipePlan", "TexPipeEngine",
            ]),
        .testTarget(
            name: "TexPipeTests",
            dependencies: ["TexPipe", "TexPipeFuzzing", "TexPipeTestSupport", "TexPipePlanTestSupport"],
            // Read by path (#filePath), not bundled.
            exclude: ["Fixtures"],
            swiftSettings: tests),
        .testTarget(
            name: "EndToEndTests", dependencies: ["TexPipe"],
            swiftSettings: tests),
    ],
    swiftLanguageModes: [.v6]
)

/// A layer's tests (docs/ARCHITECTURE.md "Tests"): the layer, the layers below it they use, and the
/// shared support — nothing above, so they build as soon as the layer does.
func layerTests(_ layer: String, _ below: [String] = []) -> Target {
    .testTarget(
        name: layer + "Tests", dependencies: ([layer] + below + ["TexPipeTestSupport"]).map { .target(name: $0) },
        swiftSettings: tests)
}
