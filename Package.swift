// swift-tools-version:6.0
import Foundation
import PackageDescription

let package = Package(
    name: "bbsarchive",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "bbsarchive", targets: ["bbsarchive"]),
        .executable(name: "smth-replica", targets: ["smth-replica"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        // C libraries from Debian's -dev packages, each with a shim of static inline wrappers.
        .systemLibrary(
            name: "CLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]),
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .systemLibrary(
            name: "CCmarkGFM", pkgConfig: "libcmark-gfm",
            providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"]), .brew(["cmark-gfm"])]),
        // Thumbnails of archived images (libvips: fast, and it streams, so little memory),
        // loaded at run time by the first image, so runs without new images never load it.
        .target(name: "CVips"),
        // libcurl (its header from libcurl4-openssl-dev), loaded at run time by the
        // first fetch, so that the commands that never fetch do not load it and the
        // ~30 libraries it needs: ~7 ms of the dynamic loader's work a run.
        .target(name: "CCurl"),
        // A per-document arena behind the allocators of libxml2 (HTMLDocument)
        // and cmark-gfm (MarkdownDocument).
        .target(name: "CXMLArena"),
        // SHA-256 from the system's libcrypto where there is one (the CPU's SHA
        // instructions), loaded at run time; Store/SHA256.swift otherwise.
        .target(name: "CSHA256"),

        // The core: fetch → parse → normalize → store → render, one folder per stage.
        .target(
            name: "BBSArchive",
            dependencies: [
                "CLibXML2", "CXMLArena", "CCurl", "CCmarkGFM", "CZlib", "CVips", "CSHA256", "CBuildInfo",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]),
        // The commit the program was built from, for `--version` and the store's
        // record of its last writer (commit.h, which scripts/build-commit.sh
        // writes before every make target that builds).
        .target(name: "CBuildInfo"),
        // The command line: parses options, then calls the core.
        .target(
            name: "BBSArchiveCLI",
            dependencies: [
                "BBSArchive",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]),
        .executableTarget(name: "bbsarchive", dependencies: ["BBSArchiveCLI"]),

        // A deterministic local replica of the SMTH site, served on loopback.
        .target(
            name: "SMTHReplica",
            dependencies: ["CZlib", .product(name: "FlyingFox", package: "FlyingFox")]),
        .executableTarget(
            name: "smth-replica",
            dependencies: [
                "SMTHReplica",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // make bench: parser throughput and the Hugo export, in process, over the public API.
        .executableTarget(
            name: "bbsarchive-bench",
            dependencies: ["BBSArchive", "CLibXML2", .product(name: "Mustache", package: "swift-mustache")]),

        // Helpers only the tests use: a well-formedness check, row counts.
        .target(
            name: "BBSArchiveTestSupport",
            dependencies: ["BBSArchive", "CLibXML2", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Tests/BBSArchiveTestSupport"),
        .testTarget(
            name: "BBSArchiveTests",
            dependencies: [
                "BBSArchive", "BBSArchiveCLI", "SMTHReplica", "BBSArchiveTestSupport", "CLibXML2", "CXMLArena",
                "CSHA256",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["Stores", "Golden"]),
    ],
    swiftLanguageModes: [.v6]
)

// make fuzz (scripts/fuzz.sh): libFuzzer targets, built only on request,
// with `--sanitize=fuzzer`, because libFuzzer brings the `main` they need.
if ProcessInfo.processInfo.environment["BBSARCHIVE_FUZZ"] == "1" {
    package.targets.append(.executableTarget(name: "bbsarchive-fuzz", dependencies: ["BBSArchive"]))
    package.products.append(.executable(name: "bbsarchive-fuzz", targets: ["bbsarchive-fuzz"]))
}
