// swift-tools-version: 6.1
// A package that processes its own assets with texpipe's command plugin:
//   swift package --allow-writing-to-package-directory texpipe           # texpipe run
//   swift package --allow-writing-to-package-directory texpipe validate
import PackageDescription

let package = Package(
    name: "PluginDemo",
    dependencies: [
        // Your package names texpipe by URL and version; the demo uses the checkout it lives in.
        .package(name: "texpipe", path: "../..")
    ],
    targets: [
        .target(name: "PluginDemo")
    ]
)
