// swift-tools-version: 6.1
// texpipe's kernel benchmarks (ordo-one/benchmark). A package of its own, so neither
// `swift build` nor the tests of texpipe ever build or time it.
//   cd Benchmarks && swift package benchmark
import Foundation
import PackageDescription

// A path dependency is known by its folder's name, which is the clone's, not "texpipe".
let texpipe = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "texpipe-benchmarks",
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "Kernels",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "TexPipe", package: texpipe),
            ],
            path: "Benchmarks/Kernels",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ],
    swiftLanguageModes: [.v6]
)
