public import Foundation

/// Where the repository, its samples and the shared test data are, for tests.
public enum TestPaths {
    /// The repository root (the folder holding Package.swift).
    public static let repositoryRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// `../shared` beside the repository (read-only test data), or `CARDSYNC_SHARED` when set.
    public static let shared: URL = {
        if let override = ProcessInfo.processInfo.environment["CARDSYNC_SHARED"] { return URL(fileURLWithPath: override) }
        return repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")
    }()

    /// The real-world corpus folder.
    public static var corpus: URL { shared.appendingPathComponent("corpus") }

    /// The repository's `Samples/` folder.
    public static var samples: URL { repositoryRoot.appendingPathComponent("Samples") }

    /// Fixtures of a test target: `Tests/<target>/Fixtures`.
    public static func fixtures(_ target: String) -> URL {
        repositoryRoot.appendingPathComponent("Tests").appendingPathComponent(target).appendingPathComponent("Fixtures")
    }

    /// A new, empty temporary directory for one test.
    public static func makeTemporaryDirectory(_ label: String = "test") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("cardsync-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
